/// What coercing one incoming value produced.
enum Coerced {
    case value(AttributeValue)
    /// JSON `null`: the attribute is cleared.
    case null
    /// A value that means "not given" (an empty string for a non-string type, as RestKit skips an
    /// empty date): the attribute is left as it is.
    case skip
}

/// Converts incoming JSON values to an attribute's declared type by RestKit's rules:
/// numeric strings become numbers (a `.` makes a double), the boolean words
/// `true t yes y false f no n` become booleans, numbers and numeric strings become dates as epoch
/// seconds, date strings are parsed by `DateParser`. Anything else is an error, never a guess: the
/// caller adds the JSON path and the attribute to the message.
enum Coercion {
    @inline(__always)
    static func coerce<R: JSONReader>(_ node: R.Node, reader: R, to type: AttributeType,
                                      depthLimit: Int) throws(MappingError) -> Coerced {
        let kind = reader.kind(of: node)
        if kind == .null { return .null }
        if type == .json { return .value(.json(try reader.jsonText(of: node, depthLimit: depthLimit))) }
        let scalar: Scalar
        switch kind {
        case .null: return .null
        case .true: scalar = .boolean(true)
        case .false: scalar = .boolean(false)
        case .integer: scalar = .integer(reader.integer(of: node))
        case .real:
            // A number the double rounded is read with its written digits where they matter: a
            // decimal keeps them, an integer or a string is made from them (never from the rounding).
            if type != .double, type != .date, let written = try reader.recoveredDecimal(of: node) {
                if type == .decimal { return .value(.decimal(written)) }
                scalar = .string(written.description)
            } else {
                scalar = .real(reader.real(of: node))
            }
        case .string where type == .date:
            // Parsed from the parser's bytes in place: no copy, and no `String` unless the message
            // needs one. An empty string is no date (skipped).
            let parsed: Timestamp?? = reader.withStringBytes(of: node) { $0.isEmpty ? .none : .some(DateParser.parse(bytes: $0)) }
            guard let parsed else { return .skip }
            if let parsed { return .value(.date(parsed)) }
            throw notADate(reader.string(of: node))
        case .string: scalar = .string(reader.string(of: node))
        case .object, .array:
            throw MappingError(.type, "expected a \(type.rawValue) value, found \(kind == .object ? "an object" : "an array")")
        }
        return try coerce(scalar, to: type)
    }

    /// An incoming scalar, before coercion.
    enum Scalar {
        case boolean(Bool)
        case integer(Int64)
        case real(Double)
        case string(String)
    }

    static func coerce(_ scalar: Scalar, to type: AttributeType) throws(MappingError) -> Coerced {
        if case .string(let text) = scalar, text.isEmpty, type != .string { return .skip }
        switch type {
        case .string: return .value(.string(string(scalar)))
        case .integer: return .value(.integer(try integer(scalar)))
        case .double: return .value(.double(try double(scalar)))
        case .decimal: return .value(.decimal(try decimal(scalar)))
        case .boolean: return .value(.boolean(try boolean(scalar)))
        case .date: return .value(.date(try date(scalar)))
        case .json: return .value(.json(JSONText(json(scalar))))
        }
    }

    private static func string(_ scalar: Scalar) -> String {
        switch scalar {
        case .string(let s): s
        case .integer(let i): String(i)
        case .real(let d): ExactDecimal(d)?.description ?? d.description
        case .boolean(let b): b ? "true" : "false"
        }
    }

    private static func integer(_ scalar: Scalar) throws(MappingError) -> Int64 {
        switch scalar {
        case .integer(let i): return i
        case .boolean(let b): return b ? 1 : 0
        case .real(let d):
            let exact = ExactDecimal(d)
            if let value = exact?.int64Value { return value }
            if exact?.isIntegral == true {
                throw MappingError(.range, "\(d.description) is out of the 64-bit integer range")
            }
            throw MappingError(.type, "\(d.description) is not an integer")
        case .string(let s):
            if let b = booleanWord(s) { return b ? 1 : 0 }
            guard let decimal = ExactDecimal(parsing: s) else {
                throw MappingError(.type, "\(quoted(s)) is not an integer")
            }
            guard let value = decimal.int64Value else {
                throw MappingError(decimal.isIntegral ? .range : .type,
                                   decimal.isIntegral ? "\(quoted(s)) is out of the 64-bit integer range"
                                                      : "\(quoted(s)) is not an integer")
            }
            return value
        }
    }

    private static func double(_ scalar: Scalar) throws(MappingError) -> Double {
        switch scalar {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        case .boolean(let b): return b ? 1 : 0
        case .string(let s):
            if let b = booleanWord(s) { return b ? 1 : 0 }
            guard let value = NumberText.double(s) else {
                throw MappingError(.type, "\(quoted(s)) is not a number")
            }
            return value
        }
    }

    private static func decimal(_ scalar: Scalar) throws(MappingError) -> ExactDecimal {
        switch scalar {
        case .integer(let i): return ExactDecimal(i)
        case .boolean(let b): return ExactDecimal(b ? 1 : 0)
        case .real(let d):
            guard let value = ExactDecimal(d) else { throw MappingError(.type, "\(d) is not a finite number") }
            return value
        case .string(let s):
            if let b = booleanWord(s) { return ExactDecimal(b ? 1 : 0) }
            guard let value = ExactDecimal(parsing: s) else {
                throw MappingError(.type, "\(quoted(s)) is not a decimal number")
            }
            return value
        }
    }

    private static func boolean(_ scalar: Scalar) throws(MappingError) -> Bool {
        switch scalar {
        case .boolean(let b): return b
        case .integer(let i): return i != 0
        case .real(let d): return d != 0
        case .string(let s):
            if let b = booleanWord(s) { return b }
            if let number = ExactDecimal(parsing: s) { return !number.isZero }
            throw MappingError(.type, "\(quoted(s)) is not a boolean")
        }
    }

    private static func date(_ scalar: Scalar) throws(MappingError) -> Timestamp {
        switch scalar {
        case .integer(let i):
            if let t = Timestamp(secondsSince1970: Double(i)) { return t }
        case .real(let d):
            if let t = Timestamp(secondsSince1970: d) { return t }
        case .string(let s):
            if let t = DateParser.parse(s) { return t }
            throw notADate(s)
        case .boolean:
            throw MappingError(.type, "a boolean is not a date")
        }
        throw MappingError(.range, "the date is out of range")
    }

    /// The error for a string no date format reads (one wording for both paths, which parse once).
    private static func notADate(_ text: String) -> MappingError {
        MappingError(.type, "\(quoted(text)) is not a date")
    }

    private static func json(_ scalar: Scalar) -> JSONValue {
        switch scalar {
        case .boolean(let b): .bool(b)
        case .integer(let i): .integer(i)
        case .real(let d): .real(d)
        case .string(let s): .string(s)
        }
    }

    /// RestKit's boolean words, case-insensitive.
    static func booleanWord(_ text: String) -> Bool? {
        guard text.utf8.count <= 5 else { return nil }
        switch text.lowercased() {
        case "true", "t", "yes", "y": return true
        case "false", "f", "no", "n": return false
        default: return nil
        }
    }

    static func quoted(_ text: String) -> String {
        let shown = text.count > 60 ? String(text.prefix(57)) + "..." : text
        return "\"" + shown + "\""
    }
}
