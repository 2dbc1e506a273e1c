/// The checks and steps behind the direct changes of `MappingContext+Changes.swift`: names resolved,
/// handles and target entities checked, values coerced, identities kept unique and indexed.
package struct GraphEditor {
    package let model: Model

    package init(model: Model) {
        self.model = model
    }

    /// The entity of a live object (its values are read in place, never copied out).
    private func live(_ object: ObjectID, _ store: ObjectStore) throws(MappingError) -> Entity {
        guard let kind = store.entityIndex(of: object), model.entities.indices.contains(kind) else {
            throw MappingError(.stale, "object \(object) was deleted or belongs to another context")
        }
        return model.entities[kind]
    }

    private func relationship(_ name: String, of entity: Entity) throws(MappingError) -> (Int, Relationship) {
        guard let index = entity.relationshipIndex(named: name) else {
            throw entity.unknownRelationship(name)
        }
        return (index, entity.relationships[index])
    }

    package func create(_ entityName: String, values: [JSONMember], in store: inout ObjectStore) throws(MappingError) -> ObjectID {
        guard let entity = model.entity(named: entityName) else { throw model.unknownEntity(entityName) }
        let object = store.create(entity)
        for member in values {
            try set(object, attribute: member.key, to: member.value, in: &store, registering: false)
        }
        try register(object, entity, in: &store)
        return object
    }

    package func set(_ object: ObjectID, attribute name: String, to value: JSONValue, in store: inout ObjectStore,
             registering: Bool = true) throws(MappingError) {
        let entity = try live(object, store)
        guard let attribute = entity.attributeIndex(named: name) else {
            throw entity.unknownAttribute(name)
        }
        let declared = entity.attributes[attribute]
        let coerced: Coerced
        do {
            coerced = try Coercion.coerce(value, reader: JSONValueReader(), to: declared.type, depthLimit: 256)
        } catch {
            throw MappingError(error.code, "cannot set \(entity.name).\(declared.name) (\(declared.type.rawValue)): \(error.message)",
                               attribute: entity.name + "." + declared.name)
        }
        let stored: AttributeValue?
        switch coerced {
        case .value(let value): stored = value
        case .null: stored = nil
        case .skip: return
        }
        let identifies = registering && entity.identification.contains(attribute)
        if identifies, let old = store.identity(of: object, entity) {
            store.unregister(object, map: old.map, key: old.key)
        }
        store.setValue(stored, of: object, attribute: attribute)
        if identifies { try register(object, entity, in: &store) }
    }

    /// Puts an object with a complete identity in its identity map; the identity must be free.
    func register(_ object: ObjectID, _ entity: Entity, in store: inout ObjectStore) throws(MappingError) {
        guard let identity = store.identity(of: object, entity) else { return }
        if let holder = store.lookup(map: identity.map, key: identity.key), holder != object {
            throw MappingError(.constraint, "another \(entity.name) already has this identity",
                               attribute: entity.name + "." + entity.identification.map { entity.attributes[$0].name }.joined(separator: ","))
        }
        store.register(object, map: identity.map, key: identity.key)
    }

    private func checkTargets(_ targets: [ObjectID], _ relationship: Relationship, _ store: ObjectStore) throws(MappingError) {
        for target in targets {
            let entity = try live(target, store)
            guard model.isKind(entity.index, of: relationship.destination) else {
                throw MappingError(.type, "\"\(relationship.name)\" holds \(model.entities[relationship.destination].name) objects, not a \(entity.name)")
            }
        }
    }

    package func setRelated(_ object: ObjectID, relationship name: String, to targets: [ObjectID],
                    in store: inout ObjectStore) throws(MappingError) {
        let entity = try live(object, store)
        let (index, relationship) = try self.relationship(name, of: entity)
        try checkTargets(targets, relationship, store)
        guard relationship.toMany || targets.count <= 1 else {
            throw MappingError(.type, "\"\(name)\" is a to-one relationship: give it one object or none")
        }
        store.setTargets(of: object, relationship: index, relationship, to: targets, model: model)
    }

    package func add(_ target: ObjectID, to object: ObjectID, relationship name: String, at position: Int?,
             in store: inout ObjectStore) throws(MappingError) {
        let entity = try live(object, store)
        let (index, relationship) = try self.relationship(name, of: entity)
        try checkTargets([target], relationship, store)
        guard relationship.toMany else {
            store.setTargets(of: object, relationship: index, relationship, to: [target], model: model)
            return
        }
        if position != nil && !relationship.ordered {
            throw MappingError(.misuse, "\"\(name)\" is not ordered: add without an index")
        }
        let current = store.links(of: object, index)?.targets ?? []
        // Appending a member leaves it where it is, as an ordered set's append does (Core Data's
        // NSMutableOrderedSet, swift-collections' OrderedSet); an explicit position moves it there.
        if position == nil && current.contains(target) { return }
        var targets = current.filter { $0 != target }
        let at = position ?? targets.count
        guard (0...targets.count).contains(at) else {
            throw MappingError(.range, "position \(at) is past the end of \"\(name)\" (\(targets.count) object(s))")
        }
        targets.insert(target, at: at)
        store.setTargets(of: object, relationship: index, relationship, to: targets, model: model)
    }

    package func remove(_ target: ObjectID, from object: ObjectID, relationship name: String,
                in store: inout ObjectStore) throws(MappingError) {
        let entity = try live(object, store)
        let (index, relationship) = try self.relationship(name, of: entity)
        if relationship.toMany || (store.links(of: object, index)?.targets ?? []).first == target {
            let kept = (store.links(of: object, index)?.targets ?? []).filter { $0 != target }
            store.setTargets(of: object, relationship: index, relationship, to: kept, model: model)
        }
    }

    package func move(in object: ObjectID, relationship name: String, from: Int, to: Int,
              in store: inout ObjectStore) throws(MappingError) {
        let entity = try live(object, store)
        let (index, relationship) = try self.relationship(name, of: entity)
        guard relationship.toMany, relationship.ordered else {
            throw MappingError(.misuse, "\"\(name)\" is not an ordered to-many relationship")
        }
        var targets = (store.links(of: object, index)?.targets ?? [])
        guard targets.indices.contains(from), targets.indices.contains(to) else {
            throw MappingError(.range, "positions \(from) and \(to) must be below \(targets.count)")
        }
        let moved = targets.remove(at: from)
        targets.insert(moved, at: to)
        store.setTargets(of: object, relationship: index, relationship, to: targets, model: model)
    }
}
