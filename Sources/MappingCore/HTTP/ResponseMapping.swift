/// A response the host received, to be mapped by the spec's response descriptors.
public struct HTTPResponse: Sendable {
    public var method: HTTPMethods
    /// The request URL, absolute (resolve it against the base URL first).
    public var url: String
    public var status: Int
    /// Request and response headers as the host wants them readable: a JSON object, or `.null`.
    public var headers: JSONValue
    public var baseURL: String?
    /// RestKit's target object: the object the request sent (POST/PUT/PATCH). A single representation
    /// at the top of the body (not an array) is mapped into it whatever identity it carries, so an
    /// object created without an id learns the one the server gave it. Ignored when the top is an
    /// array or the mapping's entity does not fit; the identity it ends with must be free
    /// (`MAPPING_ECONSTRAINT` otherwise).
    public var target: ObjectID?

    public init(method: HTTPMethods, url: String, status: Int, headers: JSONValue = .null, baseURL: String? = nil,
                target: ObjectID? = nil) {
        self.target = target
        self.method = method
        self.url = url
        self.status = status
        self.headers = headers
        self.baseURL = baseURL
    }

    /// The request's method as HTTP writes it (`GET` when none is set).
    var methodName: String { HTTPMethods.names.first { $0.1 == method }?.0 ?? "GET" }
}

extension CompiledSpec {
    /// The descriptors a response selects: per key path the most specific matching one (literal
    /// segments beat parameters, which fixes RestKit's picking `users/:code` for `users/search`),
    /// with the path arguments it matched.
    func descriptors(for response: HTTPResponse) -> [(ResponseDescriptor, [String: JSONValue])] {
        var chosen: [(ResponseDescriptor, [String: JSONValue])] = []
        for descriptor in responseDescriptors
        where descriptor.methods.isSuperset(of: response.method) && descriptor.matchesStatus(response.status) {
            guard let arguments = descriptor.match(url: response.url, baseURL: response.baseURL) else { continue }
            if let index = chosen.firstIndex(where: { $0.0.keyPath == descriptor.keyPath && ($0.0.errorMessage == nil) == (descriptor.errorMessage == nil) }) {
                if descriptor.specificity > chosen[index].0.specificity { chosen[index] = (descriptor, arguments) }
            } else {
                chosen.append((descriptor, arguments))
            }
        }
        return chosen
    }
}

extension ImportOptions {
    /// RestKit's metadata for a response: `@metadata.HTTP.request.{URL,method,headers}`,
    /// `@metadata.HTTP.response.{URL,status,headers}`, `@metadata.routing.parameters.<name>` (and
    /// `network.arguments`), `@metadata.query.parameters.<name>`, merged over the caller's.
    mutating func addResponseMetadata(_ response: HTTPResponse, arguments: [String: JSONValue]) {
        let method = response.methodName
        let query = URLResolution.parse(response.url).query.map(QueryString.decodeObject) ?? .object([])
        let routing: JSONValue = .object(arguments.keys.sorted().map { JSONMember($0, arguments[$0] ?? .null) })
        var members: [JSONMember] = []
        if case .object(let given) = metadata { members = given }
        members.removeAll { ["HTTP", "routing", "network", "query"].contains($0.key) }
        members += [
            JSONMember("HTTP", .object([
                JSONMember("request", .object([JSONMember("URL", .string(response.url)), JSONMember("method", .string(method)),
                                               JSONMember("headers", response.headers)])),
                JSONMember("response", .object([JSONMember("URL", .string(response.url)),
                                                JSONMember("status", .integer(Int64(response.status))),
                                                JSONMember("headers", response.headers)]))])),
            JSONMember("routing", .object([JSONMember("parameters", routing)])),
            JSONMember("network", .object([JSONMember("arguments", routing)])),
            JSONMember("query", .object([JSONMember("parameters", query)])),
        ]
        metadata = .object(members)
    }
}

extension MappingContext {
    /// Maps a response with every descriptor that matches it, as one all-or-nothing import. An error
    /// status fails with `MAPPING_ERESPONSE`, carrying the payload's error messages when an error
    /// descriptor matches. Returns the objects of all key paths in descriptor order.
    public func mapResponse<Reader: JSONReader>(_ response: HTTPResponse, root: Reader.Node?, reader: Reader,
                                                options given: ImportOptions = ImportOptions()) throws(MappingError) -> [ObjectID] {
        let matched = spec.descriptors(for: response)
        if response.status >= 400 {
            var messages: [String] = []
            for (descriptor, _) in matched {
                guard let key = descriptor.errorMessage, let root else { continue }
                let value = descriptor.keyPath.map { Self.value(at: $0, in: root, reader) } ?? root
                messages += Self.errorMessages(value, key: key, reader)
            }
            // Method and URL first: an error status is read in logs far from the request.
            let answer = "\(response.methodName) \(response.url) answered \(response.status)"
            throw MappingError(.response, messages.isEmpty ? answer : answer + ": " + messages.joined(separator: ", "))
        }
        let objectDescriptors = matched.filter { $0.0.mapping != nil }
        guard !objectDescriptors.isEmpty else {
            throw MappingError(.mapping, "no response descriptor matches \(response.url) (status \(response.status))")
        }
        guard let root else { return [] }
        var options = given
        options.addResponseMetadata(response, arguments: objectDescriptors.first?.1 ?? [:])
        options.keyPaths = objectDescriptors.map(\.0.keyPath)
        options.targetObject = response.target
        let names = objectDescriptors.compactMap { $0.0.mapping.map(spec.name(of:)) }
        return try importDocument(mappings: names, root: root, reader: reader, options: options)
    }

    private static func value<Reader: JSONReader>(at keyPath: String, in root: Reader.Node, _ reader: Reader) -> Reader.Node? {
        var current: Reader.Node? = root
        for name in keyPath.split(separator: ".").map(String.init) {
            current = current.flatMap { reader.member(of: $0, key: PlanKey(name)) }
        }
        return current
    }

    private static func errorMessages<Reader: JSONReader>(_ node: Reader.Node?, key: String, _ reader: Reader) -> [String] {
        guard let node else { return [] }
        switch reader.kind(of: node) {
        case .array:
            var messages: [String] = []
            reader.forEachElementQuietly(of: node) { messages += errorMessages($0, key: key, reader) }
            return messages
        case .string:
            return [reader.string(of: node)]
        case .object:
            guard let message = value(at: key, in: node, reader), reader.kind(of: message) == .string else { return [] }
            return [reader.string(of: message)]
        default:
            return []
        }
    }
}
