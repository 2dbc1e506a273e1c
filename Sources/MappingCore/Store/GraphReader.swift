import MappingArena

/// Read-only questions about the graph, answered with clear errors for unknown names and stale
/// handles. Used by `MappingContext` while it holds the context's lock.
package struct GraphReader {
    let model: Model
    package let store: ObjectStore

    package init(model: Model, store: ObjectStore) {
        self.model = model
        self.store = store
    }

    package func entity(of object: ObjectID) throws(MappingError) -> Entity {
        guard let kind = store.entityIndex(of: object) else {
            throw MappingError(.stale, "object \(object) was deleted or belongs to another context")
        }
        guard model.entities.indices.contains(kind) else {
            throw MappingError(.failed, "object \(object) has no entity")
        }
        return model.entities[kind]
    }

    package func entity(named name: String) throws(MappingError) -> Entity {
        guard let entity = model.entity(named: name) else {
            throw model.unknownEntity(name)
        }
        return entity
    }

    package func value(of object: ObjectID, attribute name: String) throws(MappingError) -> (AttributeValue?, Attribute) {
        let (index, declared) = try attribute(of: object, named: name)
        return (store.attributeValue(of: object, index), declared)
    }

    /// A string attribute's stored bytes, read in place; `nil` when null. Throws for another type.
    package func stringRef(of object: ObjectID, attribute name: String) throws(MappingError) -> (StringArena.Ref?, Attribute) {
        let (index, declared) = try attribute(of: object, named: name)
        guard declared.type == .string, let value = store.stringRef(of: object, index) else {
            return (nil, declared)
        }
        return (value, declared)
    }

    private func attribute(of object: ObjectID, named name: String) throws(MappingError) -> (Int, Attribute) {
        let entity = try entity(of: object)
        guard let index = entity.attributeIndex(named: name), entity.attributes.indices.contains(index) else {
            throw entity.unknownAttribute(name)
        }
        return (index, entity.attributes[index])
    }

    /// One attribute of many objects, the name resolved once per entity rather than per object. Errors
    /// name the position of the object that fails; the attribute must have one type across the
    /// objects' entities, so callers can convert the whole column the same way. `faults` holds the
    /// value of faults whose column was read from the database (`ObjectStore.columnOfFaults`).
    package func column(_ objects: [ObjectID], attribute name: String,
                        faults: FaultColumn = FaultColumn()) throws(MappingError) -> [AttributeValue?] {
        var values: [AttributeValue?] = []
        values.reserveCapacity(objects.count)
        try forEachValue(objects, attribute: name, faults: faults) { position, object, attribute in
            if let read = faults.value(at: position) { values.append(read) } else { values.append(store.attributeValue(of: object, attribute)) }
        }
        return values
    }

    /// The same column as JSON text, written as it is read (no array of values in between, and
    /// strings copied from the graph's own bytes).
    package func columnText(_ objects: [ObjectID], attribute name: String,
                            faults: FaultColumn = FaultColumn()) throws(MappingError) -> [UInt8] {
        var writer = ColumnWriter(capacity: objects.count)
        try forEachValue(objects, attribute: name, faults: faults) { position, object, attribute in
            if let read = faults.value(at: position) {
                writer.append(read)
            } else if let ref = store.stringRef(of: object, attribute) {
                writer.appendString(ref, from: store.arena)
            } else {
                writer.append(store.attributeValue(of: object, attribute))
            }
        }
        return writer.finish()
    }

    /// Calls `body` with each object and the index of the attribute `name` in its entity.
    private func forEachValue(_ objects: [ObjectID], attribute name: String, faults: FaultColumn,
                              _ body: (Int, ObjectID, Int) -> Void) throws(MappingError) {
        var slotByEntity = [Int?](repeating: nil, count: model.entities.count)
        var columnType: AttributeType?
        for (position, object) in objects.enumerated() {
            // A fault whose column was read counts as the entity it was linked as (which has the attribute).
            guard let entityIndex = store.entityIndex(of: object) ?? (faults.value(at: position) != nil ? store.faultEntity(object) : nil),
                  slotByEntity.indices.contains(entityIndex) else {
                throw MappingError(.stale, "object \(position) (\(object)) was deleted or belongs to another context")
            }
            let slot: Int
            if let known = slotByEntity[entityIndex] {
                slot = known
            } else {
                let entity = model.entities[entityIndex]
                guard let index = entity.attributeIndex(named: name) else {
                    throw MappingError(.name, "object \(position): entity \"\(entity.name)\" has no attribute \"\(name)\"",
                                       attribute: entity.name + "." + name)
                }
                let type = entity.attributes[index].type
                if let columnType, columnType != type {
                    throw MappingError(.type, "object \(position): \"\(name)\" is a \(type.rawValue) in \(entity.name) but a \(columnType.rawValue) in the objects before",
                                       attribute: entity.name + "." + name)
                }
                columnType = type
                slotByEntity[entityIndex] = index
                slot = index
            }
            body(position, object, slot)
        }
    }

    package func links(of object: ObjectID, relationship name: String) throws(MappingError) -> (Links, Relationship) {
        let entity = try entity(of: object)
        guard let index = entity.relationshipIndex(named: name), let stored = store.links(of: object, index) else {
            throw entity.unknownRelationship(name)
        }
        // A `noAction` delete rule can leave a handle to a deleted object behind: skip it.
        let links: Links = switch stored {
        case .one(let target): .one(target.flatMap { store.contains($0) ? $0 : nil })
        case .many(let list): .many(LinkList(list.ids.filter(store.contains)))
        case .unread: .many(LinkList())  // never from `links(of:)`
        }
        return (links, entity.relationships[index])
    }

    /// Every object of the entity and of its sub-entities, in creation order.
    package func objects(of entity: Entity) -> [ObjectID] {
        var result: [ObjectID] = []
        var entities = 0
        for candidate in model.entities where model.isKind(candidate.index, of: entity.index) {
            if store.members.indices.contains(candidate.index) {
                result += store.members[candidate.index].filter(store.contains)
                entities += 1
            }
        }
        if entities > 1 {
            result.sort { store.sequence(of: $0) < store.sequence(of: $1) }
        }
        return result
    }

    package func count(of entity: Entity) -> Int {
        var total = 0
        for candidate in model.entities where model.isKind(candidate.index, of: entity.index) {
            if store.liveCounts.indices.contains(candidate.index) { total += store.liveCounts[candidate.index] }
        }
        return total
    }

    /// The object of `entity` (or a sub-entity) with this identity. `identity` is the value for a
    /// single identification attribute, or for a compound one an array in identification order or
    /// an object keyed by attribute name. Values are coerced as on import (`"123"` finds `123`).
    package func find(_ entity: Entity, identity: JSONValue) throws(MappingError) -> ObjectID? {
        guard let key = try identityKey(of: entity, identity: identity), let map = entity.identityMap else { return nil }
        guard let found = store.lookup(map: map, key: key), let kind = store.entityIndex(of: found),
              model.isKind(kind, of: entity.index) else { return nil }
        return found
    }

    /// The identity-map key `identity` makes for `entity` (see `find`); nil when it names no
    /// object (a null).
    package func identityKey(of entity: Entity, identity: JSONValue) throws(MappingError) -> IdentityKey? {
        guard entity.identityMap != nil else {
            throw MappingError(.misuse, "entity \"\(entity.name)\" has no identification to look objects up by")
        }
        return try IdentityMap.key(for: identity, of: entity)
    }
}
