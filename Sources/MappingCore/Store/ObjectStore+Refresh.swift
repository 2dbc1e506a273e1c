/// Other processes' commits, applied to this context's graph (a PostgreSQL store's refresh). They
/// are applied as one commit of this context that writes nothing back, so observers are told of
/// them with a change set like any other commit's.
extension ObjectStore {
    /// Brings the graph up to the rows `refresh` read. Deleted rows go without delete rules: the
    /// process that deleted them applied the rules and wrote what they changed, which is in `rows`.
    /// Identities move in two passes, so rows that trade identities within one refresh do not
    /// collide. Returns the object of every key the refresh names.
    package mutating func apply(_ refresh: StoreRefresh, model: Model) throws(MappingError) -> [Int64: ObjectID] {
        session.applyingStoreChanges = true
        defer { session.applyingStoreChanges = false }
        return try transaction(model: model) { (store: inout ObjectStore) throws(MappingError) -> [Int64: ObjectID] in
            store.applyRows(refresh, model: model)
        }
    }

    private mutating func applyRows(_ refresh: StoreRefresh, model: Model) -> [Int64: ObjectID] {
        var objects = refresh.objects
        for key in refresh.deleted {
            guard let object = objects.removeValue(forKey: key) else { continue }
            // A row the graph never read goes with nothing to undo: the rows that linked to it
            // are in the refresh, rewritten by the process that deleted it.
            if faultEntity(object) != nil { dropFault(object); continue }
            guard let kind = entityIndex(of: object),
                  model.entities.indices.contains(kind) else { continue }
            let entity = model.entities[kind]
            for (index, relationship) in entity.relationships.enumerated() {
                for target in links(of: object, index)?.targets ?? [] {
                    detachInverse(of: object, relationship, from: target, model: model)
                }
            }
            remove(object, identity: identity(of: object, entity))
        }
        var rows: [(object: ObjectID, entity: Entity, stored: StoredObject)] = []
        rows.reserveCapacity(refresh.rows.count)
        for stored in refresh.rows where model.entities.indices.contains(stored.entity) {
            let entity = model.entities[stored.entity]
            if let object = objects[stored.key], entityIndex(of: object) == stored.entity {
                if let old = identity(of: object, entity) { unregister(object, map: old.map, key: old.key) }
                for (index, value) in stored.values.enumerated() where index < entity.attributes.count {
                    setValue(value, of: object, attribute: index)
                }
                rows.append((object, entity, stored))
            } else {
                let object = create(entity, values: stored.values)
                objects[stored.key] = object
                rows.append((object, entity, stored))
            }
        }
        for row in rows {
            registerIfFree(row.object, row.entity)
        }
        for row in rows {
            for (index, relationship) in row.entity.relationships.enumerated() where row.stored.links.indices.contains(index) {
                // A list not read stays so, and one the refresh did not read is forgotten: either
                // is read as the database has it when it is needed (`ObjectStore+Lists`).
                if listIsUnread(row.object, index) { continue }
                if !refresh.lists, refresh.partial, relationship.toMany, model.inverse(of: relationship)?.toMany == false {
                    setStoredLinks(.unread, of: row.object, relationship: index)
                    session.mayHoldUnreadLists = true
                    continue
                }
                var targets: [ObjectID] = []
                for key in row.stored.links[index] {
                    if let target = objects[key] {
                        // Only live objects of the relationship's destination: a row edited by hand
                        // could name another entity's, which would break the inverses.
                        let kind = entityIndex(of: target) ?? faultEntity(target)
                        if kind.map({ model.isKind($0, of: relationship.destination) }) == true { targets.append(target) }
                    } else if refresh.partial {
                        let fault = makeFault(relationship.destination)
                        objects[key] = fault
                        targets.append(fault)
                    }
                }
                let current = self.targets(of: row.object, index)
                if current != targets {
                    setTargets(of: row.object, relationship: index, relationship, to: targets, model: model)
                }
            }
        }
        return objects
    }
}
