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
    package var methodName: String { HTTPMethods.names.first { $0.1 == method }?.0 ?? "GET" }
}

extension CompiledSpec {
    /// The descriptors a response selects: per key path the most specific matching one (literal
    /// segments beat parameters, which fixes RestKit's picking `users/:code` for `users/search`),
    /// with the path arguments it matched.
    package func descriptors(for response: HTTPResponse) -> [(ResponseDescriptor, [String: JSONValue])] {
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
    package mutating func addResponseMetadata(_ response: HTTPResponse, arguments: [String: JSONValue]) {
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
