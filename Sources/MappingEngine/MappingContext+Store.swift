import MappingCore
import MappingSQL

extension MappingContext {
    /// The database the context's commits are written to, if it has one.
    public var persistentStore: (any PersistentStore)? {
        graph.withLockIgnoringTransactions { $0.session.persistent }
    }

    /// The most objects a context on a store keeps read between calls: past it, the least recently
    /// used are evicted (`ObjectCache`), their handles staying valid. 0: no limit. Settable at any
    /// time (it applies from the end of the next call); no effect on a context without a store.
    public var cacheLimit: Int {
        get { graph.withLockIgnoringTransactions { $0.session.cacheLimit } }
        set { graph.withLockIgnoringTransactions { $0.session.cacheLimit = max(newValue, 0) } }
    }

    /// How many objects the context holds read now (faults, rows not read, are not counted).
    public var cachedObjectCount: Int {
        graph.withLockIgnoringTransactions { $0.readCount }
    }

    /// How many faults (rows linked to but not read) the graph holds: for tests of what is read when.
    var faultCount: Int {
        graph.withLockIgnoringTransactions { $0.faultCount }
    }

    /// Fills this empty context with what opening a store read, and attaches the store. A store
    /// the graph reads rows from as they are touched (`RowSource`) read none: the graph starts
    /// empty and reads them (`ObjectStore+Faults`).
    public func attach(_ opened: OpenedStore) throws(MappingError) {
        guard let source = opened.store as? any RowSource, opened.objects.isEmpty else {
            _ = try attach(opened.store, loading: opened.objects)
            return
        }
        try withGraph { (store: inout ObjectStore) throws(MappingError) in
            try Self.checkAttachable(store)
            store.orderNewObjectsAfterRows()
            store.session.persistent = source
            store.session.cache = ObjectCache(source: source)
            // An empty store has nothing to read: the graph holds all of it from the start.
            if try source.holdsRows() { store.session.rowSource = source }
        }
    }

    /// A store attaches only to an empty context with none, outside a transaction.
    private static func checkAttachable(_ store: ObjectStore) throws(MappingError) {
        guard store.objectCount == 0, store.session.persistent == nil, !store.session.explicitTransaction else {
            throw MappingError(.misuse, "a store can be attached only to an empty context")
        }
    }

    /// Fills an empty graph with objects read from a database and attaches the database: from then
    /// on every commit is written to it. The store is told what each row became (`attached`) under
    /// the context's lock, before any other call can reach it. Returns each stored key's object.
    /// Not a commit: observers are not called, and nothing is written back. A refusal leaves the
    /// context empty.
    public func attach(_ persistent: any PersistentStore, loading objects: [StoredObject]) throws(MappingError) -> [Int64: ObjectID] {
        let model = spec.model
        return try withGraph { (store: inout ObjectStore) throws(MappingError) -> [Int64: ObjectID] in
            try Self.checkAttachable(store)
            var perEntity = Array(repeating: 0, count: model.entities.count)
            for stored in objects {
                guard model.entities.indices.contains(stored.entity) else {
                    throw MappingError(.failed, "the store names an entity the model lacks")
                }
                perEntity[stored.entity] += 1
            }
            // Identity maps sized once for what is loaded, so they are not rehashed as they grow.
            for entity in model.entities {
                store.reserve(for: entity, additional: perEntity[entity.index])
            }
            var found: [Int64: ObjectID] = [:]
            found.reserveCapacity(objects.count)
            for stored in objects where model.entities.indices.contains(stored.entity) {
                let entity = model.entities[stored.entity]
                guard let identity = ObjectStore.identity(of: stored.values, entity) else {
                    found[stored.key] = store.create(entity, values: stored.values)
                    continue
                }
                guard let (object, isNew) = store.findOrCreate(entity, map: identity.map, key: identity.key,
                                                               making: .row(stored.values)), isNew else {
                    // Two rows, one identity (the SQL stores refuse this as they read, naming the
                    // rows; this guards any store): the graph goes back to empty.
                    let session = store.session
                    store = ObjectStore(model: model, space: store.space)
                    store.session = session
                    throw MappingError(.store, "two rows of the store hold one \(entity.name)'s identity: the store was changed outside libmapping")
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
            persistent.attached(objects, as: found)
            store.session.persistent = persistent
            return found
        }
    }
}
