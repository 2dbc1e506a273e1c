/// A database the graph is kept in. The context calls `write` inside every commit that changed
/// something, under its lock, before the commit is final: a throw fails the commit, which then
/// rolls back in memory too, so the database and the graph never disagree. The SQLite store
/// implements it; a second SQL backend implements the same.
public protocol PersistentStore: AnyObject, Sendable {
    func write(_ commit: StoreCommit) throws(MappingError)
    /// What other processes committed to the database since this was last asked, read from it, or
    /// nil when nothing is known to have changed. Called under the context's lock before each call
    /// made outside a transaction; `wait` (an explicit refresh) asks the database first rather than
    /// looking only at what it has already said. A store no other process writes returns nil.
    func othersChanges(wait: Bool) throws(MappingError) -> StoreRefresh?
    /// Told, once `refresh` is in the graph, the object each of its rows is now.
    func applied(_ refresh: StoreRefresh, objects: [Int64: ObjectID])
}

extension PersistentStore {
    public func othersChanges(wait: Bool) throws(MappingError) -> StoreRefresh? { nil }
    public func applied(_ refresh: StoreRefresh, objects: [Int64: ObjectID]) {}
}

/// Rows other processes committed, to bring the graph up to the database: each row as it is now
/// (made or changed), the keys of rows deleted, and the objects the graph already has for the keys
/// they name. A to-many kept on its targets' rows (its inverse is a to-one) is not in `rows`' links:
/// the targets' to-ones carry it.
public struct StoreRefresh: Sendable {
    public var rows: [StoredObject]
    public var deleted: [Int64]
    public var objects: [Int64: ObjectID]

    public init(rows: [StoredObject], deleted: [Int64], objects: [Int64: ObjectID]) {
        self.rows = rows
        self.deleted = deleted
        self.objects = objects
    }

    public var isEmpty: Bool { rows.isEmpty && deleted.isEmpty }
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
        /// For an updated row, the names of the attributes and relationships the commit changed, in
        /// declaration order; empty for an inserted or moved row.
        public let changed: [String]
        /// For an updated row, per relationship, the targets a to-many in `changed` held before the
        /// commit (empty for the others), so that a store shared with other processes can write just
        /// what the commit added, removed and moved, keeping what others did meanwhile; nil for an
        /// inserted or moved row.
        public let before: [[ObjectID]]?
    }

    public let model: Model
    public internal(set) var inserted: [Row] = []
    public internal(set) var updated: [Row] = []
    /// Rows whose only change is their position in an owner's to-many (another member was added,
    /// removed or moved): only their position columns need writing.
    public internal(set) var moved: [Row] = []
    public internal(set) var deleted: [(object: ObjectID, entity: Entity)] = []

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && moved.isEmpty && deleted.isEmpty }
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
            if let row = row(object, model, &positions, changed: []) { commit.inserted.append(row) }
        }
        var written = Set(journal.created)
        for updated in changes.updated where written.insert(updated.object).inserted {
            let before = liveSlot(of: updated.object).flatMap { journal.beforeImages[$0] }
            if let row = row(updated.object, model, &positions, changed: updated.changed, before: before) { commit.updated.append(row) }
        }
        // An owner whose to-many changed may move its targets: the rows whose place in it is not
        // the one they had are written too (appending moves none; removing one moves those after it).
        // Places count live targets, as `row` does: those of the list before the commit that were
        // live then (live now, or deleted by this commit).
        let deletedHere = Set(journal.deleted.map {
            ObjectID(tag: space.tag, generation: $0.generation, slot: UInt32(truncatingIfNeeded: space.firstSlot + $0.slot))
        })
        for updated in changes.updated {
            guard let kind = entityIndex(of: updated.object), model.entities.indices.contains(kind) else { continue }
            let entity = model.entities[kind]
            let before = liveSlot(of: updated.object).flatMap { journal.beforeImages[$0] }
            for (index, relationship) in entity.relationships.enumerated()
            where relationship.toMany && updated.changed.contains(relationship.name) && model.inverse(of: relationship)?.toMany == false {
                var placeBefore: [ObjectID: Int] = [:]
                if let before, before.links.indices.contains(index), case .many(let list) = before.links[index] {
                    for target in list.ids where contains(target) || deletedHere.contains(target) {
                        placeBefore[target] = placeBefore.count
                    }
                }
                var place = 0
                for target in targets(of: updated.object, index) where contains(target) {
                    defer { place += 1 }
                    guard placeBefore[target] != place, written.insert(target).inserted else { continue }
                    if let row = row(target, model, &positions, changed: []) { commit.moved.append(row) }
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

    private func row(_ object: ObjectID, _ model: Model, _ cache: inout PositionCache, changed: [String],
                     before: ObjectRecord? = nil) -> StoreCommit.Row? {
        guard let record = record(object), model.entities.indices.contains(record.entity) else { return nil }
        let entity = model.entities[record.entity]
        // Loops rather than `map`/`filter(contains)`: a method reference captures a copy of the
        // store (a retain of each of its arrays) per call, which was a visible share of a commit.
        var links: [[ObjectID]] = []
        links.reserveCapacity(record.links.count)
        for link in record.links {
            switch link {
            case .one(let target?) where contains(target): links.append([target])
            case .one: links.append([])
            case .many(let list):
                var live: [ObjectID] = []
                live.reserveCapacity(list.count)
                for target in list.ids where contains(target) { live.append(target) }
                links.append(live)
            }
        }
        var positions: [Int?] = []
        positions.reserveCapacity(entity.relationships.count)
        for (index, relationship) in entity.relationships.enumerated() {
            guard !relationship.toMany, let inverse = relationship.inverse, links.indices.contains(index),
                  let owner = links[index].first, let ownerLinks = self.links(of: owner, inverse) else {
                positions.append(nil)
                continue
            }
            let key = PositionCache.Key(owner: owner, relationship: inverse)
            if cache.positions[key] == nil {
                var byObject: [ObjectID: Int] = [:]
                var position = 0
                for target in ownerLinks.targets where contains(target) {
                    byObject[target] = position
                    position += 1
                }
                cache.positions[key] = byObject
            }
            positions.append(cache.positions[key]?[object])
        }
        // Only the to-manys the commit changed: the lists of the others are not copied.
        let held = before.map { image in
            image.links.enumerated().map { index, link -> [ObjectID] in
                guard case .many(let list) = link, entity.relationships.indices.contains(index),
                      changed.contains(entity.relationships[index].name) else { return [] }
                return list.ids
            }
        }
        return StoreCommit.Row(object: object, entity: entity, values: record.values, links: links, positions: positions,
                               changed: changed, before: held)
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
            // Identity maps sized once for what is loaded, so they are not rehashed as they grow.
            var perEntity = Array(repeating: 0, count: model.entities.count)
            for stored in objects where perEntity.indices.contains(stored.entity) { perEntity[stored.entity] += 1 }
            for entity in model.entities {
                store.reserve(for: entity, additional: perEntity[entity.index])
            }
            var found: [Int64: ObjectID] = [:]
            found.reserveCapacity(objects.count)
            for stored in objects {
                guard model.entities.indices.contains(stored.entity) else {
                    throw MappingError(.failed, "the store names an entity the model lacks")
                }
                let entity = model.entities[stored.entity]
                let object = store.create(entity, values: stored.values)
                if let identity = store.identity(of: object, entity),
                   store.lookup(map: identity.map, key: identity.key) == nil {
                    store.register(object, map: identity.map, key: identity.key)
                }
                found[stored.key] = object
            }
            // Each relationship is set from one side where one side says it all: a to-one whose
            // inverse is a to-many is set by that to-many (in its order). Other to-ones and every
            // other to-many are set as stored (a many-to-many from both sides, each in its order).
            for stored in objects {
                guard let object = found[stored.key] else { continue }
                let entity = model.entities[stored.entity]
                for (index, relationship) in entity.relationships.enumerated() where stored.links.indices.contains(index) {
                    if !relationship.toMany && model.inverse(of: relationship)?.toMany == true { continue }
                    let targets = stored.links[index].compactMap { found[$0] }
                    if !targets.isEmpty {
                        store.setTargets(of: object, relationship: index, relationship, to: targets, model: model)
                    }
                }
            }
            store.persistent = persistent
            return found
        }
    }
}
