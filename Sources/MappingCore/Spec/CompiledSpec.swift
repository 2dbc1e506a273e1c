/// A validated spec: the model and the compiled mappings. Immutable and shared.
public struct CompiledSpec: Sendable {
    public let model: Model
    public let mappings: [MappingPlan]
    public let dynamicMappings: [DynamicMappingPlan]
    public let routes: RouteTable
    public let responseDescriptors: [ResponseDescriptor]
    public let requestDescriptors: [RequestDescriptor]
    /// Where page metadata is in responses (the `pagination` section; RestKit's usual names by default).
    public let paginationKeys: Paginator.Keys
    private let referenceByName: [String: MappingRef]

    init(model: Model, mappings: [MappingPlan], dynamicMappings: [DynamicMappingPlan], routes: RouteTable,
         responseDescriptors: [ResponseDescriptor] = [], requestDescriptors: [RequestDescriptor] = [],
         paginationKeys: Paginator.Keys = Paginator.Keys()) {
        self.model = model
        self.paginationKeys = paginationKeys
        self.routes = routes
        self.responseDescriptors = responseDescriptors
        self.requestDescriptors = requestDescriptors
        self.mappings = mappings
        self.dynamicMappings = dynamicMappings
        var byName: [String: MappingRef] = [:]
        for mapping in mappings { byName[mapping.name] = .plain(mapping.index) }
        for (index, mapping) in dynamicMappings.enumerated() { byName[mapping.name] = .dynamic(index) }
        self.referenceByName = byName
    }

    /// The mapping or dynamic mapping with this name.
    public func reference(named name: String) -> MappingRef? { referenceByName[name] }

    /// Every mapping name, plain and dynamic.
    public var mappingNames: [String] { Array(referenceByName.keys) }

    /// The plain mapping with this name.
    public func mapping(named name: String) -> MappingPlan? {
        guard case .plain(let index)? = referenceByName[name], mappings.indices.contains(index) else { return nil }
        return mappings[index]
    }

    func plan(_ index: Int) -> MappingPlan? { mappings.indices.contains(index) ? mappings[index] : nil }

    func dynamicPlan(_ index: Int) -> DynamicMappingPlan? {
        dynamicMappings.indices.contains(index) ? dynamicMappings[index] : nil
    }

    /// The name of a mapping reference, for messages.
    package func name(of reference: MappingRef) -> String {
        switch reference {
        case .plain(let index): plan(index)?.name ?? "?"
        case .dynamic(let index): dynamicPlan(index)?.name ?? "?"
        }
    }

    /// Loads and validates a spec document. Every error names the JSON path inside the spec.
    public static func load(_ document: JSONValue) throws(MappingError) -> CompiledSpec {
        let root = try SpecObject(document, path: "$")
        try root.allowKeys(["entities", "mappings", "routes", "responseDescriptors", "requestDescriptors", "pagination"])
        let model = try EntityLoader.load(try root.required("entities"))
        let (mappings, dynamicMappings) = try MappingLoader.load(try root.required("mappings"), model: model)
        let routes = try RouteLoader.load(root["routes"], model: model)
        let named = CompiledSpec(model: model, mappings: mappings, dynamicMappings: dynamicMappings, routes: routes)
        return CompiledSpec(model: model, mappings: mappings, dynamicMappings: dynamicMappings, routes: routes,
                            responseDescriptors: try ResponseDescriptorLoader.load(root["responseDescriptors"],
                                                                                    references: named.reference(named:)),
                            requestDescriptors: try RequestDescriptorLoader.load(root["requestDescriptors"], model: model,
                                                                                  references: named.reference(named:)),
                            paginationKeys: try paginationKeys(root["pagination"]))
    }

    /// The `pagination` section: `{"perPage", "currentPage", "objectCount", "pageCount", "offset"}`,
    /// each a key path into a page's body, or null for none.
    private static func paginationKeys(_ value: JSONValue?) throws(MappingError) -> Paginator.Keys {
        var keys = Paginator.Keys()
        guard let value else { return keys }
        let object = try SpecObject(value, path: "$.pagination")
        try object.allowKeys(["perPage", "currentPage", "objectCount", "pageCount", "offset"])
        func key(_ name: String, _ fallback: String?) throws(MappingError) -> String? {
            guard let given = object[name] else { return fallback }
            if case .null = given { return nil }
            return try object.string(name)
        }
        keys.perPage = try key("perPage", keys.perPage)
        keys.currentPage = try key("currentPage", keys.currentPage)
        keys.objectCount = try key("objectCount", keys.objectCount)
        keys.pageCount = try key("pageCount", keys.pageCount)
        keys.offset = try key("offset", keys.offset)
        return keys
    }
}

/// A JSON object of the spec with its path, and the checks every section needs.
struct SpecObject {
    let path: String
    let members: [JSONMember]

    init(_ value: JSONValue, path: String) throws(MappingError) {
        guard case .object(let members) = value else {
            throw MappingError(.spec, "expected an object, found \(value.kindName)", path: path)
        }
        var seen = Set<String>()
        for member in members where !seen.insert(member.key).inserted {
            throw MappingError(.spec, "duplicate key \"\(member.key)\"", path: JSONPathText.appending(path, key: member.key))
        }
        self.path = path
        self.members = members
    }

    subscript(key: String) -> JSONValue? { members.first(where: { $0.key == key })?.value }

    func path(_ key: String) -> String { JSONPathText.appending(path, key: key) }

    /// Rejects unknown keys; keys of features this version does not implement get their own message.
    func allowKeys(_ known: Set<String>, later: Set<String> = []) throws(MappingError) {
        for member in members where !known.contains(member.key) {
            if later.contains(member.key) {
                throw MappingError(.spec, "\"\(member.key)\" is not supported by this version of libmapping",
                                   path: path(member.key))
            }
            throw MappingError(.spec, "unknown key \"\(member.key)\"" + NameHint.hint(for: member.key, among: Array(known), kind: "keys"),
                               path: path(member.key))
        }
    }

    func required(_ key: String) throws(MappingError) -> JSONValue {
        guard let value = self[key] else { throw MappingError(.spec, "missing required key \"\(key)\"", path: path) }
        return value
    }

    func string(_ key: String) throws(MappingError) -> String? {
        guard let value = self[key] else { return nil }
        guard case .string(let text) = value, !text.isEmpty else {
            throw MappingError(.spec, "expected a non-empty string, found \(value.kindName)", path: path(key))
        }
        return text
    }

    func bool(_ key: String) throws(MappingError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard case .bool(let flag) = value else {
            throw MappingError(.spec, "expected true or false, found \(value.kindName)", path: path(key))
        }
        return flag
    }

    func count(_ key: String) throws(MappingError) -> Int? {
        guard let value = self[key] else { return nil }
        guard case .integer(let number) = value, number >= 0, number <= Int64(Int32.max) else {
            throw MappingError(.spec, "expected a non-negative integer", path: path(key))
        }
        return Int(number)
    }

    /// A list of names given as an array of strings or one comma-separated string.
    func names(_ key: String) throws(MappingError) -> [String]? {
        guard let value = self[key] else { return nil }
        let names: [String]
        switch value {
        case .string(let text):
            names = text.split(separator: ",").map { String($0).trimmingSpaces }
        case .array(let elements):
            var collected: [String] = []
            for (offset, element) in elements.enumerated() {
                guard case .string(let text) = element else {
                    throw MappingError(.spec, "expected a string", path: JSONPathText.appending(path(key), index: offset))
                }
                collected.append(text)
            }
            names = collected
        default:
            throw MappingError(.spec, "expected a string or an array of strings", path: path(key))
        }
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else {
            throw MappingError(.spec, "at least one attribute must be named", path: path(key))
        }
        return names
    }
}

extension String {
    var trimmingSpaces: String {
        String(self.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
