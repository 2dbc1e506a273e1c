import MappingCore
/// Changes made directly, outside imports: create, set, relate, delete. Each call is all or nothing
/// and checks `minCount`/`maxCount` when it ends, unless a transaction opened with `begin()` groups
/// calls: then the checks run at `commit()`, and a failing call rolls the whole transaction back.
/// Values are coerced as on import; identities stay unique.
extension MappingContext {
    /// Runs one change in a transaction of its own (or in the open one), on the rows it touches
    /// (`ObjectStore.touching`: a change has no callbacks, so its runs need no probe).
    private func change<T>(_ body: (inout ObjectStore, GraphEditor) throws(MappingError) -> T) throws(MappingError) -> T {
        let model = spec.model
        return try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> T in
            try store.touching(model: model, probing: false) { (store, _) throws(MappingError) -> T in
                try store.transaction(model: model) { (store: inout ObjectStore) throws(MappingError) -> T in
                    try body(&store, GraphEditor(model: model))
                }
            }
        }
    }

    // MARK: Transactions

    /// Opens a transaction that groups the calling thread's following calls on this context until
    /// `commit()` or `rollback()`. Meanwhile other threads' calls wait for it to end (up to the busy
    /// timeout): they neither see it halfway nor join it.
    public func begin() throws(MappingError) {
        try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) in try store.begin() }
    }

    /// Opens a transaction for the library's own multi-call work (a chunked import) unless the
    /// calling thread has one open already (whose changes then include the caller's). Returns whether
    /// it opened one, which the caller must then end.
    public func beginUnlessOpen() throws(MappingError) -> Bool {
        try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> Bool in
            guard !store.session.explicitTransaction else { return false }
            try store.begin(byCaller: false)
            return true
        }
    }

    /// Keeps the open transaction's changes if every count rule holds; otherwise rolls it back and throws.
    public func commit() throws(MappingError) {
        let model = spec.model
        try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) in try store.commitTransaction(model: model) }
    }

    /// Undoes everything since `begin()`.
    public func rollback() throws(MappingError) {
        try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) in try store.rollbackTransaction() }
    }

    /// Fails the open transaction with `error` as a failing call inside it does: it is rolled back,
    /// and when it is the caller's the message says so. For work that spans calls and decides at
    /// the end (a strict chunked import).
    public func fail(with error: MappingError) throws(MappingError) -> Never {
        let model = spec.model
        try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) in
            // A failure inside it has rolled it back already (and `error` says so).
            guard store.session.abortedBy == nil else { return }
            try store.transaction(model: model) { (_: inout ObjectStore) throws(MappingError) in throw error }
        }
        throw error
    }

    // MARK: Objects

    /// A new object of `entity` with these attribute values (JSON, coerced to each attribute's type).
    /// An identity that another object already has is `MAPPING_ECONSTRAINT`.
    public func create(_ entity: String, values: [JSONMember] = []) throws(MappingError) -> ObjectID {
        try change { (store, editor) throws(MappingError) in try editor.create(entity, values: values, in: &store) }
    }

    /// `create` with the values written as a literal, in the order written:
    /// `create("User", ["id": 9, "login": "octocat"])`.
    public func create(_ entity: String, _ values: KeyValuePairs<String, JSONValue>) throws(MappingError) -> ObjectID {
        try create(entity, values: values.map { JSONMember($0.key, $0.value) })
    }

    /// Sets an attribute from a JSON value (`null` clears it), coerced as on import.
    public func set(_ object: ObjectID, attribute: String, to value: JSONValue) throws(MappingError) {
        try change { (store, editor) throws(MappingError) in try editor.set(object, attribute: attribute, to: value, in: &store) }
    }

    /// Sets a relationship: a to-one to the first target (or none), a to-many to the targets in order.
    public func setRelated(_ object: ObjectID, relationship: String, to targets: [ObjectID]) throws(MappingError) {
        try change { (store, editor) throws(MappingError) in
            try editor.setRelated(object, relationship: relationship, to: targets, in: &store)
        }
    }

    /// Adds `target` to a to-many relationship, at `index` for an ordered one (at the end without one).
    /// Without an index, a target already there stays where it is; with one, it moves there.
    public func addRelated(_ object: ObjectID, relationship: String, _ target: ObjectID, at index: Int? = nil) throws(MappingError) {
        try change { (store, editor) throws(MappingError) in
            try editor.add(target, to: object, relationship: relationship, at: index, in: &store)
        }
    }

    /// Removes `target` from a relationship (a to-one holding it is cleared).
    public func removeRelated(_ object: ObjectID, relationship: String, _ target: ObjectID) throws(MappingError) {
        try change { (store, editor) throws(MappingError) in
            try editor.remove(target, from: object, relationship: relationship, in: &store)
        }
    }

    /// Moves the target at position `from` of an ordered to-many relationship to position `to`.
    public func moveRelated(_ object: ObjectID, relationship: String, from: Int, to: Int) throws(MappingError) {
        try change { (store, editor) throws(MappingError) in
            try editor.move(in: object, relationship: relationship, from: from, to: to, in: &store)
        }
    }

    /// Deletes an object, applying the delete rules of its relationships (`MAPPING_EDENIED` for deny).
    public func delete(_ object: ObjectID) throws(MappingError) {
        try change { (store, editor) throws(MappingError) in
            guard store.contains(object) else {
                throw MappingError(.stale, "object \(object) was deleted or belongs to another context")
            }
            try store.delete(object, model: editor.model)
        }
    }
}
