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
        /// Per relationship: for a to-one whose inverse is a to-many, this object's position in its
        /// target's to-many (so a store can keep that order on this row); nil otherwise.
        public let positions: [Int?]
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
        var positions = PositionCache()
        for object in journal.created {
            if let row = row(object, model, &positions) { commit.inserted.append(row) }
        }
        var written = Set(journal.created)
        for updated in changes.updated where written.insert(updated.object).inserted {
            if let row = row(updated.object, model, &positions) { commit.updated.append(row) }
        }
        // An owner whose to-many changed moves its targets' positions: their rows are written too.
        for updated in changes.updated {
            guard let record = record(updated.object), model.entities.indices.contains(record.entity) else { continue }
            let entity = model.entities[record.entity]
            for (index, relationship) in entity.relationships.enumerated()
            where relationship.toMany && updated.changed.contains(relationship.name) && record.links.indices.contains(index)
                && model.inverse(of: relationship)?.toMany == false {
                for target in record.links[index].targets where contains(target) && written.insert(target).inserted {
                    if let row = row(target, model, &positions) { commit.updated.append(row) }
                }
            }
        }
        for (slot, generation) in journal.deleted {
            let object = ObjectID(tag: space.tag, generation: generation, slot: UInt32(truncatingIfNeeded: space.firstSlot + slot))
            guard !journal.isNew(object), let before = journal.beforeImages[slot],
                  model.entities.indices.contains(before.entity) else { continue }
            commit.deleted.append((object, model.entities[before.entity]))
        }
        return commit
    }

    /// Each owner's to-many targets by position, made once per commit: rows ask for their position
    /// in their owner's list, and a search of the list per row would be quadratic in its length.
    struct PositionCache {
        struct Key: Hashable {
            let owner: ObjectID
            let relationship: Int
        }
        var positions: [Key: [ObjectID: Int]] = [:]
    }

    private func row(_ object: ObjectID, _ model: Model, _ cache: inout PositionCache) -> StoreCommit.Row? {
        guard let record = record(object), model.entities.indices.contains(record.entity) else { return nil }
        let entity = model.entities[record.entity]
        let links = record.links.map { $0.targets.filter(contains) }
        var positions: [Int?] = []
        for (index, relationship) in entity.relationships.enumerated() {
            guard !relationship.toMany, let inverse = relationship.inverse, links.indices.contains(index),
                  let owner = links[index].first, let ownerRecord = self.record(owner),
                  ownerRecord.links.indices.contains(inverse) else {
                positions.append(nil)
                continue
            }
            let key = PositionCache.Key(owner: owner, relationship: inverse)
            if cache.positions[key] == nil {
                var byObject: [ObjectID: Int] = [:]
                for (position, target) in ownerRecord.links[inverse].targets.filter(contains).enumerated() {
                    byObject[target] = position
                }
                cache.positions[key] = byObject
            }
            positions.append(cache.positions[key]?[object])
        }
        return StoreCommit.Row(object: object, entity: entity, values: record.values, links: links, positions: positions)
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
