/// Which mapping reads which part of which responses (RestKit's RKResponseDescriptor):
/// methods, a path pattern relative to the base URL, the key path of the body, and status
/// codes. A descriptor with `errorMessage` reads error payloads into a message instead of objects.
public struct ResponseDescriptor: Sendable, Equatable {
    public let mapping: MappingRef?
    public let methods: HTTPMethods
    public let pattern: PathPattern?
    public let keyPath: String?
    /// `nil`: any status.
    public let statusCodes: Set<Int>?
    /// For error descriptors: the key path of the message inside each error representation.
    public let errorMessage: String?

    /// How specific the pattern is: literal path segments count (`/users/search` beats
    /// `/users/:code`), then literal characters; no pattern is the least specific.
    var specificity: (Int, Int) {
        guard let pattern else { return (-1, -1) }
        let segments = pattern.text.split(separator: "/").filter { !$0.contains(":") }.count
        let literal = pattern.tokens.reduce(0) { count, token in
            if case .literal(let text) = token { return count + text.count } else { return count }
        }
        return (segments, literal)
    }

    /// The path arguments when `url` (absolute) matches: with a base URL, the URL must start with it
    /// and the rest is matched as it is (not re-rooted); without, the URL's path and query.
    public func match(url: String, baseURL: String?) -> [String: JSONValue]? {
        let rest: String
        if let baseURL, !baseURL.isEmpty {
            guard url.hasPrefix(baseURL) else { return nil }
            rest = String(url.dropFirst(baseURL.count))
        } else {
            let parts = URLResolution.parse(url)
            rest = parts.path + (parts.query.map { "?" + $0 } ?? "")
        }
        guard let pattern else { return [:] }
        return pattern.match(rest, queryParameters: false)
    }

    public func matchesStatus(_ status: Int) -> Bool { statusCodes?.contains(status) ?? true }
}

/// Reads the `responseDescriptors` section.
enum ResponseDescriptorLoader {
    static func load(_ value: JSONValue?, references: (String) -> MappingRef?) throws(MappingError) -> [ResponseDescriptor] {
        guard let value else { return [] }
        guard case .array(let elements) = value else {
            throw MappingError(.spec, "expected an array of response descriptors", path: "$.responseDescriptors")
        }
        var descriptors: [ResponseDescriptor] = []
        for (offset, element) in elements.enumerated() {
            let object = try SpecObject(element, path: JSONPathText.appending("$.responseDescriptors", index: offset))
            try object.allowKeys(["mapping", "method", "pathPattern", "keyPath", "statusCodes", "errorMessage"])
            var mapping: MappingRef?
            if let name = try object.string("mapping") {
                guard let found = references(name) else {
                    throw MappingError(.spec, "unknown mapping \"\(name)\"", path: object.path("mapping"))
                }
                mapping = found
            }
            let errorMessage = try object.string("errorMessage")
            guard (mapping == nil) != (errorMessage == nil) else {
                throw MappingError(.spec, "a response descriptor needs exactly one of \"mapping\" and \"errorMessage\"", path: object.path)
            }
            var pattern: PathPattern?
            if let text = try object.string("pathPattern") {
                do { pattern = try PathPattern(text) } catch { throw MappingError(.spec, error.message, path: object.path("pathPattern")) }
            }
            descriptors.append(ResponseDescriptor(
                mapping: mapping, methods: try RouteLoader.methods(object), pattern: pattern,
                keyPath: object["keyPath"] == .null ? nil : try object.string("keyPath"),
                statusCodes: try statusCodes(object, defaultClass: errorMessage == nil ? 200 : nil),
                errorMessage: errorMessage))
        }
        return descriptors
    }

    /// `[200, 201]`, `"2xx"`, `["2xx", 304]`, `"any"`; without the key, 2xx for objects and 4xx/5xx for errors.
    private static func statusCodes(_ object: SpecObject, defaultClass: Int?) throws(MappingError) -> Set<Int>? {
        guard let value = object["statusCodes"] else {
            return defaultClass.map { Set($0..<($0 + 100)) } ?? Set(400..<600)
        }
        let items: [JSONValue]
        switch value {
        case .array(let elements): items = elements
        default: items = [value]
        }
        var codes = Set<Int>()
        for item in items {
            switch item {
            case .integer(let code) where (100...599).contains(code): codes.insert(Int(code))
            case .string("any"): return nil
            case .string(let text) where text.count == 3 && text.hasSuffix("xx"):
                guard let digit = text.first?.wholeNumberValue, (1...5).contains(digit) else { fallthrough }
                codes.formUnion(digit * 100..<(digit * 100 + 100))
            default:
                throw MappingError(.spec, "status codes are numbers 100-599, classes such as \"2xx\", or \"any\"",
                                   path: object.path("statusCodes"))
            }
        }
        return codes
    }
}
