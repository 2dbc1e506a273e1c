/// A database the graph is kept in: an interface called downward (a store never sees the context it
/// serves). The graph's commit (`ObjectStore+Transaction`) calls `write` for every commit that
/// changed something, under the context's lock, before the commit is final: a throw fails the commit, which then
/// rolls back in memory too, so the database and the graph never disagree. The SQLite and
/// PostgreSQL stores implement it.
public protocol PersistentStore: AnyObject, Sendable {
    func write(_ commit: StoreCommit) throws(MappingError)
    /// What other processes committed to the database since this was last asked, read from it, or
    /// nil when nothing is known to have changed. Called under the context's lock before each call
    /// made outside a transaction; `wait` (an explicit refresh) asks the database first rather than
    /// looking only at what it has already said. A graph holding part of the store is told of
    /// changes to the rows it holds, and with `newRows` (it has observers) of the rows others
    /// inserted. A store no other process writes returns nil.
    func othersChanges(wait: Bool, newRows: Bool) throws(MappingError) -> StoreRefresh?
    /// Told, once `refresh` is in the graph, the object each of its rows is now.
    func applied(_ refresh: StoreRefresh, objects: [Int64: ObjectID])
    /// Told, once rows read (at open, or later by a `RowSource`) are in the graph, the object each
    /// key became: the rows read, and the objects and faults made for keys not seen before.
    func attached(_ objects: [StoredObject], as found: [(key: Int64, object: ObjectID)])
    /// What the database said that no call returns (PostgreSQL's notices and warnings) since this
    /// was last asked, for the context's warning handler.
    func takeNotices() -> [String]
}

extension PersistentStore {
    public func othersChanges(wait: Bool, newRows: Bool) throws(MappingError) -> StoreRefresh? { nil }
    public func applied(_ refresh: StoreRefresh, objects: [Int64: ObjectID]) {}
    public func attached(_ objects: [StoredObject], as found: [(key: Int64, object: ObjectID)]) {}

    /// `attached` with the keys and objects as a dictionary.
    public func attached(_ objects: [StoredObject], as found: [Int64: ObjectID]) {
        attached(objects, as: found.map { (key: $0.key, object: $0.value) })
    }
    public func takeNotices() -> [String] { [] }
}

/// Rows other processes committed, to bring the graph up to the database: each row as it is now
/// (made or changed), with every relationship (to-manys in order), the keys of rows deleted, and
/// the objects the graph already has for the keys they name. `partial`: the graph holds part of
/// the store, and a key the rows link to that it does not know is a row it has not read (a fault
/// is made for it); otherwise the refresh holds that row too. `lists`: the rows' one-to-manys
/// (kept on their targets' rows) were read; without them, a graph holding part of the store
/// forgets those lists of the rows it holds, and reads them again when they are followed.
public struct StoreRefresh: Sendable {
    public var rows: [StoredObject]
    public var deleted: [Int64]
    public var objects: [Int64: ObjectID]
    public var partial: Bool
    public var lists: Bool

    public init(rows: [StoredObject], deleted: [Int64], objects: [Int64: ObjectID], partial: Bool = false, lists: Bool = true) {
        self.rows = rows
        self.deleted = deleted
        self.objects = objects
        self.partial = partial
        self.lists = lists
    }

    public var isEmpty: Bool { rows.isEmpty && deleted.isEmpty }
}
