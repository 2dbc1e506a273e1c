/// Maps one parsed payload into the store with one mapping plan. Generic over the reader so the
/// payload is read in place; the caller runs it inside a store transaction, so any error leaves
/// the graph as it was.
///
/// Per representation: identification values are read and coerced first, the identity map finds
/// the existing object or a new one is created and registered (so a later repetition in the same
/// payload finds it), then attributes are set (missing key: left alone; `null`: cleared), then
/// nested relationships are mapped and assigned with inverses kept in step.
struct Importer<Reader: JSONReader> {
    let spec: CompiledSpec
    let reader: Reader
    var store: ObjectStore
    private var path = PayloadPath()
    private var depth = 0

    /// How deep mapped objects may nest (each nested relationship is one level). Bounds the
    /// recursion so hostile input gets an error instead of exhausting the stack.
    static var maxDepth: Int { 128 }

    /// The deepest `json` attribute value stored.
    static var maxValueDepth: Int { 256 }

    init(spec: CompiledSpec, reader: Reader, store: ObjectStore) {
        self.spec = spec
        self.reader = reader
        self.store = store
    }

    private var model: Model { spec.model }

    /// Maps the representations at the mapping's `rootPath` (or the root): an object or an array of
    /// objects (`null` elements are skipped). Returns the top-level objects in payload order.
    mutating func run(mapping: MappingPlan, root: Reader.Node) throws(MappingError) -> [ObjectID] {
        var node = root
        if let rootPath = mapping.rootPath {
            guard let found = resolve(rootPath, in: root) else {
                throw MappingError(.mapping, "the payload has nothing at rootPath \"\(rootPath)\" of mapping \"\(mapping.name)\"",
                                   path: path.text(adding: rootPath))
            }
            node = found
            for step in rootPath.steps { path.push(.key(step.key.name)) }
        }
        switch reader.kind(of: node) {
        case .object, .string, .integer, .real, .true, .false:
            return [try mapObject(node, mapping)]
        case .array:
            var objects: [ObjectID] = []
            objects.reserveCapacity(reader.count(of: node))
            for index in 0..<reader.count(of: node) {
                guard let element = reader.element(of: node, at: index), reader.kind(of: element) != .null else {
                    continue
                }
                path.push(.index(index))
                objects.append(try mapObject(element, mapping))
                path.pop()
            }
            return objects
        default:
            throw MappingError(.type, "expected an object or an array of objects for mapping \"\(mapping.name)\"",
                               path: path.text())
        }
    }

    // MARK: Objects

    private mutating func mapObject(_ node: Reader.Node, _ mapping: MappingPlan) throws(MappingError) -> ObjectID {
        // A bare value (`"418"` in an array of ids) is a representation only for a mapping that
        // maps the representation itself (`@self`).
        guard reader.kind(of: node) == .object || mapping.mapsSelf else {
            throw MappingError(.type, "expected an object for mapping \"\(mapping.name)\"", path: path.text())
        }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else {
            throw MappingError(.depth, "objects nested more than \(Self.maxDepth) levels deep", path: path.text())
        }
        guard model.entities.indices.contains(mapping.entity) else {
            throw MappingError(.failed, "mapping \"\(mapping.name)\" names no entity")
        }
        let entity = model.entities[mapping.entity]
        let object = try findOrCreate(node, mapping, entity)
        for attributeMapping in mapping.attributes {
            try applyAttribute(attributeMapping, from: node, to: object, entity: entity)
        }
        for relationshipMapping in mapping.relationships {
            try applyRelationship(relationshipMapping, from: node, to: object, entity: entity)
        }
        return object
    }

    /// The object the representation identifies: found in the identity map, or created with its
    /// identification values set and registered. Without complete identification values (no
    /// identification, an id missing or null) a new object is created and not registered.
    private mutating func findOrCreate(_ node: Reader.Node, _ mapping: MappingPlan,
                                       _ entity: Entity) throws(MappingError) -> ObjectID {
        guard let map = entity.identityMap,
              let values = try identificationValues(node, mapping, entity) else {
            return store.create(entity)
        }
        let key = IdentityKey(values)
        if let existing = store.lookup(map: map, key: key), let record = store.record(existing) {
            guard model.isKind(record.entity, of: entity.index) else {
                let found = model.entities.indices.contains(record.entity) ? model.entities[record.entity].name : "?"
                throw MappingError(.mapping, "the object with this identity is a \(found), not a \(entity.name)",
                                   path: path.text(), attribute: entity.name)
            }
            return existing
        }
        let object = store.create(entity)
        for (attribute, value) in zip(entity.identification, values) {
            store.setValue(value, of: object, attribute: attribute)
        }
        store.register(object, map: map, key: key)
        return object
    }

    private mutating func identificationValues(_ node: Reader.Node, _ mapping: MappingPlan,
                                               _ entity: Entity) throws(MappingError) -> [AttributeValue]? {
        var values: [AttributeValue] = []
        values.reserveCapacity(entity.identification.count)
        for source in mapping.identitySources {
            guard let source, mapping.attributes.indices.contains(source) else { return nil }
            let attributeMapping = mapping.attributes[source]
            guard let (valueNode, keyPath) = firstPresent(attributeMapping.alternatives, in: node),
                  case .value(let value) = try coerce(valueNode, attributeMapping.attribute, entity, keyPath) else {
                return nil
            }
            values.append(value)
        }
        return values
    }

    // MARK: Attributes

    private mutating func applyAttribute(_ attributeMapping: AttributeMappingPlan, from node: Reader.Node,
                                         to object: ObjectID, entity: Entity) throws(MappingError) {
        guard let (valueNode, keyPath) = firstPresent(attributeMapping.alternatives, in: node) else { return }
        switch try coerce(valueNode, attributeMapping.attribute, entity, keyPath) {
        case .value(let value): store.setValue(value, of: object, attribute: attributeMapping.attribute)
        case .null: store.setValue(nil, of: object, attribute: attributeMapping.attribute)
        case .skip: break
        }
    }

    private func coerce(_ node: Reader.Node, _ attribute: Int, _ entity: Entity,
                        _ keyPath: KeyPath) throws(MappingError) -> Coerced {
        guard entity.attributes.indices.contains(attribute) else { return .skip }
        let declared = entity.attributes[attribute]
        do {
            return try Coercion.coerce(node, reader: reader, to: declared.type, depthLimit: Self.maxValueDepth)
        } catch {
            let where_ = path.text(adding: keyPath)
            return try Self.rethrow(error, at: where_, attribute: entity.name + "." + declared.name,
                                    type: declared.type)
        }
    }

    private static func rethrow(_ error: MappingError, at path: String, attribute: String,
                                type: AttributeType) throws(MappingError) -> Coerced {
        throw MappingError(error.code, "cannot map \(path) into \(attribute) (\(type.rawValue)): \(error.message)",
                           path: path, attribute: attribute)
    }

    // MARK: Relationships

    private mutating func applyRelationship(_ relationshipMapping: RelationshipMappingPlan, from node: Reader.Node,
                                            to object: ObjectID, entity: Entity) throws(MappingError) {
        guard entity.relationships.indices.contains(relationshipMapping.relationship),
              spec.mappings.indices.contains(relationshipMapping.mapping),
              let target = resolve(relationshipMapping.keyPath, in: node) else { return }
        let relationship = entity.relationships[relationshipMapping.relationship]
        let childMapping = spec.mappings[relationshipMapping.mapping]
        let index = relationshipMapping.relationship
        for step in relationshipMapping.keyPath.steps { path.push(.key(step.key.name)) }
        defer { for _ in relationshipMapping.keyPath.steps { path.pop() } }

        switch reader.kind(of: target) {
        case .null:
            if relationship.toMany {
                store.setToMany(object, relationship: index, to: [], model: model)
            } else {
                store.setToOne(object, relationship: index, to: nil, model: model)
            }
        case .object, .string, .integer, .real, .true, .false:
            let child = try mapObject(target, childMapping)
            if relationship.toMany {
                store.setToMany(object, relationship: index, to: [child], model: model)
            } else {
                store.setToOne(object, relationship: index, to: child, model: model)
            }
        case .array where relationship.toMany:
            var children: [ObjectID] = []
            children.reserveCapacity(reader.count(of: target))
            for position in 0..<reader.count(of: target) {
                guard let element = reader.element(of: target, at: position),
                      reader.kind(of: element) != .null else { continue }
                path.push(.index(position))
                children.append(try mapObject(element, childMapping))
                path.pop()
            }
            store.setToMany(object, relationship: index, to: children, model: model)
        default:
            let expected = relationship.toMany ? "an object or an array of objects" : "an object"
            throw MappingError(.type, "expected \(expected) for relationship \(entity.name).\(relationship.name)",
                               path: path.text(), attribute: entity.name + "." + relationship.name)
        }
    }

    // MARK: Key paths

    /// The node at `keyPath` below `node`; `nil` when a step is missing or lands on `null` midway.
    private func resolve(_ keyPath: KeyPath, in node: Reader.Node) -> Reader.Node? {
        var current = node
        for step in keyPath.steps {
            switch reader.kind(of: current) {
            case .object:
                guard let next = reader.member(of: current, key: step.key) else { return nil }
                current = next
            case .array:
                guard let index = step.index, let next = reader.element(of: current, at: index) else { return nil }
                current = next
            default:
                return nil
            }
        }
        return current
    }

    private func firstPresent(_ alternatives: [KeyPath], in node: Reader.Node) -> (Reader.Node, KeyPath)? {
        for keyPath in alternatives {
            if let found = resolve(keyPath, in: node) { return (found, keyPath) }
        }
        return nil
    }
}
