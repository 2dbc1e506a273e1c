/// How objects become request parameters (RestKit's RKRequestDescriptor):
/// an entity (sub-entities included), methods, the mapping written in reverse, and a root key path
/// that wraps the parameters (`{"user": {...}}`).
public struct RequestDescriptor: Sendable {
    public let entity: Int
    public let methods: HTTPMethods
    public let mapping: MappingRef
    public let rootKeyPath: String?
}

enum RequestDescriptorLoader {
    static func load(_ value: JSONValue?, model: Model, references: (String) -> MappingRef?) throws(MappingError) -> [RequestDescriptor] {
        guard let value else { return [] }
        guard case .array(let elements) = value else {
            throw MappingError(.spec, "expected an array of request descriptors", path: "$.requestDescriptors")
        }
        var descriptors: [RequestDescriptor] = []
        for (offset, element) in elements.enumerated() {
            let object = try SpecObject(element, path: JSONPathText.appending("$.requestDescriptors", index: offset))
            try object.allowKeys(["entity", "method", "mapping", "rootKeyPath"])
            guard let entityName = try object.string("entity"), let entity = model.entityIndex(named: entityName) else {
                throw MappingError(.spec, "a request descriptor needs a known \"entity\"", path: object.path("entity"))
            }
            guard let name = try object.string("mapping"), let mapping = references(name) else {
                throw MappingError(.spec, "a request descriptor needs a known \"mapping\"", path: object.path("mapping"))
            }
            descriptors.append(RequestDescriptor(entity: entity, methods: try RouteLoader.methods(object), mapping: mapping,
                                                 rootKeyPath: try object.string("rootKeyPath")))
        }
        return descriptors
    }
}

extension CompiledSpec {
    /// The request descriptor for an object of `entity` and `method`: on the entity an exact method,
    /// then a method set containing it, then the parent entity, and so on up.
    package func requestDescriptor(for entity: Int, method: HTTPMethods) -> RequestDescriptor? {
        var current: Int? = entity
        var steps = 0
        while let level = current, steps <= model.entities.count {
            let here = requestDescriptors.filter { $0.entity == level }
            if let exact = here.first(where: { $0.methods == method }) { return exact }
            if let contained = here.first(where: { $0.methods.isSuperset(of: method) }) { return contained }
            current = model.entities.indices.contains(level) ? model.entities[level].parent : nil
            steps += 1
        }
        return nil
    }
}
