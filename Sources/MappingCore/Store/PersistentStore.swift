/// A database the graph is kept in. The context calls `write` inside every commit that changed
/// something, under its lock, before the commit is final: a throw fails the commit, which then
/// rolls back in memory too, so the database and the graph never disagree. The SQLite store
/// implements it; a second SQL backend implements the same.
public protocol PersistentStore: AnyObject, Sendable {
    func write(_ commit: StoreCommit) throws(MappingError)
}

/// What one commit writes: the objects it inserted and updated as they are now, and the objects
/// it deleted. Objects made and deleted within the commit appear nowhere.
public struct StoreCommit {
    public struct Row {
        public let object: ObjectID
        public let entity: Entity
        public let values: [AttributeValue?]
        /// Per relationship of the entity, its live targets in order.
        public let links: [[ObjectID]]
    }

    public let model: Model
    public internal(set) var inserted: [Row] = []
    public internal(set) var updated: [Row] = []
    public internal(set) var deleted: [(object: ObjectID, entity: Entity)] = []

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// An object read back from a database, for `MappingContext.load`: its key in the database, its
/// entity, its values, and per relationship the keys of its targets in order.
public struct StoredObject: Sendable {
    public let key: Int64
    public let entity: Int
    public let values: [AttributeValue?]
    public let links: [[Int64]]

    public init(key: Int64, entity: Int, values: [AttributeValue?], links: [[Int64]]) {
        self.key = key
        self.entity = entity
        self.values = values
        self.links = links
    }
}

extension ObjectStore {
    /// The rows the transaction `journal` recorded, read from the store as it is at the commit.
    func storeCommit(of journal: Journal, changes: ChangeSet, model: Model) -> StoreCommit {
        var commit = StoreCommit(model: model)
        for object in journal.created {
            if let row = row(object, model) { commit.inserted.append(row) }
        }
        for updated in changes.updated {
            if let row = row(updated.object, model) { commit.updated.append(row) }
        }
        for (slot, generation) in journal.deleted {
            let object = ObjectID(tag: space.tag, generation: generation, slot: UInt32(truncatingIfNeeded: space.firstSlot + slot))
            guard !journal.isNew(object), let before = journal.beforeImages[slot],
                  model.entities.indices.contains(before.entity) else { continue }
            commit.deleted.append((object, model.entities[before.entity]))
        }
        return commit
    }

    private func row(_ object: ObjectID, _ model: Model) -> StoreCommit.Row? {
        guard let record = record(object), model.entities.indices.contains(record.entity) else { return nil }
        return StoreCommit.Row(object: object, entity: model.entities[record.entity], values: record.values,
                               links: record.links.map { $0.targets.filter(contains) })
    }
}

extension MappingContext {
    /// Fills an empty graph with objects read from a database and attaches the database: from then
    /// on every commit is written to it. Returns each stored key's object. Not a commit: observers
    /// are not called, and nothing is written back.
    public func attach(_ persistent: any PersistentStore, loading objects: [StoredObject]) throws(MappingError) -> [Int64: ObjectID] {
        let model = spec.model
        return try withGraph { (store: inout ObjectStore) throws(MappingError) -> [Int64: ObjectID] in
            guard store.objectCount == 0, store.persistent == nil, !store.explicitTransaction else {
                throw MappingError(.misuse, "a store can be attached only to an empty context")
            }
            var found: [Int64: ObjectID] = [:]
            found.reserveCapacity(objects.count)
            for stored in objects {
                guard model.entities.indices.contains(stored.entity) else {
                    throw MappingError(.failed, "the store names an entity the model lacks")
                }
                let entity = model.entities[stored.entity]
                let object = store.create(entity)
                for (attribute, value) in stored.values.enumerated() where attribute < entity.attributes.count {
                    if let value { store.setValue(value, of: object, attribute: attribute) }
                }
                if let identity = store.record(object).flatMap({ IdentityMap.key(of: $0, entity) }),
                   store.lookup(map: identity.map, key: identity.key) == nil {
                    store.register(object, map: identity.map, key: identity.key)
                }
                found[stored.key] = object
            }
            // To-ones first: their inverses then collect targets in no particular order, which the
            // to-manys (stored in order) set right afterwards.
            for pass in [false, true] {
                for stored in objects {
                    guard let object = found[stored.key] else { continue }
                    let entity = model.entities[stored.entity]
                    for (index, relationship) in entity.relationships.enumerated()
                    where relationship.toMany == pass && stored.links.indices.contains(index) {
                        let targets = stored.links[index].compactMap { found[$0] }
                        if !targets.isEmpty || pass {
                            store.setTargets(of: object, relationship: index, relationship, to: targets, model: model)
                        }
                    }
                }
            }
            store.persistent = persistent
            return found
        }
    }
}
