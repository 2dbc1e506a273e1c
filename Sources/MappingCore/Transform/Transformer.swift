/// A value transformer registered by the host program: JSON in, JSON out, with an optional reverse
/// for serialization. Called while the context's lock is held, so it must not call back into the
/// same context (the C layer refuses such calls).
public struct HostTransformer: Sendable {
    public let forward: @Sendable (JSONValue) throws(MappingError) -> JSONValue
    public let reverse: (@Sendable (JSONValue) throws(MappingError) -> JSONValue)?

    public init(forward: @escaping @Sendable (JSONValue) throws(MappingError) -> JSONValue,
                reverse: (@Sendable (JSONValue) throws(MappingError) -> JSONValue)? = nil) {
        self.forward = forward
        self.reverse = reverse
    }
}

/// What a transformer made of an incoming value, before it is coerced to the attribute's type.
enum Transformed {
    case json(JSONValue)
    case date(Timestamp)
}

/// A named transformer of an attribute mapping (`"transformer": …`), applied to the incoming value
/// before coercion and in reverse when writing out. `null` is never transformed: it clears.
package enum Transformer: Sendable {
    /// ISO 8601 date-times and dates only (no other formats, no numbers).
    case iso8601
    /// Seconds since 1970 (a number or a numeric string); written back as a number.
    case epoch
    /// Milliseconds since 1970; written back as an integer.
    case epochMillis
    /// A URL: a string with an RFC 3986 scheme and no spaces; kept as the string.
    case url
    /// `date:<pattern>`: a Unicode date pattern, read and written in UTC.
    case pattern(DatePattern)
    /// `map:{…}` / `{"map": {…}}`: an enum table from incoming values (as text) to stored values,
    /// reversed on output.
    case map([JSONMember])
    /// A transformer the host registers under this name.
    case host(String)

    package static let builtInNames = ["iso8601", "epoch", "epochMillis", "url"]

    /// Reads a `"transformer"` value of the spec.
    static func load(_ value: JSONValue, path: String) throws(MappingError) -> Transformer {
        switch value {
        case .object:
            let object = try SpecObject(value, path: path)
            try object.allowKeys(["map"])
            return try table(try object.required("map"), path: object.path("map"))
        case .string(let name):
            switch name {
            case "iso8601": return .iso8601
            case "epoch": return .epoch
            case "epochMillis": return .epochMillis
            case "url": return .url
            default: break
            }
            if name.hasPrefix("date:") {
                do {
                    return .pattern(try DatePattern(String(name.dropFirst("date:".count))))
                } catch {
                    throw MappingError(.spec, error.message, path: path)
                }
            }
            if name.hasPrefix("map:") {
                throw MappingError(.spec, "write an enum table as {\"map\": {…}}", path: path)
            }
            guard !name.isEmpty, !name.contains(":") else {
                throw MappingError(.spec, "unknown transformer \"\(name)\"", path: path)
            }
            return .host(name)
        default:
            throw MappingError(.spec, "expected a transformer name or {\"map\": {…}}", path: path)
        }
    }

    private static func table(_ value: JSONValue, path: String) throws(MappingError) -> Transformer {
        guard case .object(let members) = value, !members.isEmpty else {
            throw MappingError(.spec, "expected a non-empty object mapping incoming values to stored values", path: path)
        }
        return .map(members)
    }

    // MARK: Forward

    func forward(_ input: JSONValue, hosts: [String: HostTransformer]) throws(MappingError) -> Transformed {
        if case .null = input { return .json(.null) }
        switch self {
        case .iso8601:
            guard case .string(let text) = input, let date = DateParser.iso8601(text) else {
                throw MappingError(.type, "\(input.text()) is not an ISO 8601 date")
            }
            return .date(date)
        case .epoch, .epochMillis:
            let scale: Double = if case .epoch = self { 1 } else { 1_000 }
            guard let number = Self.number(input), let date = Timestamp(secondsSince1970: number / scale) else {
                throw MappingError(.type, "\(input.text()) is not a number of \(scale == 1 ? "seconds" : "milliseconds")")
            }
            return .date(date)
        case .url:
            guard case .string(let text) = input, Self.isURL(text) else {
                throw MappingError(.type, "\(input.text()) is not a URL")
            }
            return .json(input)
        case .pattern(let pattern):
            guard case .string(let text) = input, let date = pattern.parse(text) else {
                throw MappingError(.type, "\(input.text()) does not match the date pattern \"\(pattern.text)\"")
            }
            return .date(date)
        case .map(let table):
            guard let key = DynamicMappingPlan.caseText(input), let found = table.first(where: { $0.key == key }) else {
                throw MappingError(.type, "\(input.text()) is not one of the values the map knows (\(table.map(\.key).joined(separator: ", ")))")
            }
            return .json(found.value)
        case .host(let name):
            guard let host = hosts[name] else {
                throw MappingError(.name, "transformer \"\(name)\" is not registered")
            }
            return .json(try host.forward(input))
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let number): Double(number)
        case .real(let number): number
        case .decimal(let number): number.doubleValue
        case .string(let text): NumberText.double(text)
        default: nil
        }
    }

    /// `scheme:rest` with an RFC 3986 scheme, a non-empty rest and no whitespace or control characters.
    static func isURL(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon + 1 < bytes.count,
              let first = bytes.first, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else {
            return false
        }
        let schemeOK = bytes[..<colon].allSatisfy { byte in
            ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        return schemeOK && bytes.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    // MARK: Reverse

    /// The value as written out; `nil` leaves the key out (a host transformer without a reverse).
    func reverse(_ value: AttributeValue, hosts: [String: HostTransformer]) throws(MappingError) -> JSONValue? {
        switch (self, value) {
        case (.iso8601, .date(let date)):
            return .string(date.iso8601)
        case (.epoch, .date(let date)):
            let (seconds, rest) = date.microseconds.floorDivided(by: 1_000_000)
            return rest == 0 ? .integer(seconds) : .real(date.secondsSince1970)
        case (.epochMillis, .date(let date)):
            return .integer(date.microseconds.floorDivided(by: 1_000).quotient)
        case (.pattern(let pattern), .date(let date)):
            return .string(pattern.format(date))
        case (.map(let table), _):
            let stored = value.jsonValue
            if let found = table.first(where: { $0.value == stored || JSONValue.sameNumber($0.value, stored) }) {
                return .string(found.key)
            }
            return stored
        case (.host(let name), _):
            guard let reverse = hosts[name]?.reverse else { return nil }
            return try reverse(value.jsonValue)
        default:
            return value.jsonValue
        }
    }
}

extension JSONValue {
    /// True when both are numbers of the same value (`1` and `1.0`), which a map table may mix.
    static func sameNumber(_ a: JSONValue, _ b: JSONValue) -> Bool {
        func number(_ value: JSONValue) -> ExactDecimal? {
            switch value {
            case .integer(let number): ExactDecimal(number)
            case .real(let number): ExactDecimal(number)
            case .decimal(let number): number
            default: nil
            }
        }
        guard let x = number(a), let y = number(b) else { return false }
        return x == y
    }
}
