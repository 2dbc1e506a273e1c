/// A database the graph reads its rows from as they are touched, rather than all at open (the
/// SQLite store). The graph keeps what it has read; a row it has not read yet is a fault: a handle
/// that names the row's key, made when a row read before links to it. Keys are the store's own
/// (the graph never looks inside one); the store remembers which object each key became.
public protocol RowSource: PersistentStore {
    /// The object the graph made for a row (which a rollback may have discarded since: the graph
    /// checks it is still live), or nil.
    func object(forKey key: Int64) -> ObjectID?
    /// The key of the row an object (or fault) was made for; nil for an object the store has
    /// not written yet.
    func key(of object: ObjectID) -> Int64?
    /// The rows with these keys, with their values and, per relationship, the keys of their targets
    /// in order, except one-to-manys (kept on their targets' rows: `lists`), which are left empty;
    /// rows that are gone are left out.
    func rows(keys: [Int64]) throws(MappingError) -> [StoredObject]
    /// The targets of one-to-many `relationship` of `entity` (kept on its targets' rows) for the
    /// rows with these keys, in order, by owner key.
    func lists(of entity: Entity, relationship: Int, owners: [Int64]) throws(MappingError) -> [Int64: [Int64]]
    /// The rows of `entity`'s table whose identification holds one of `identities` (each one row,
    /// or none, unless the store's unique index was dropped), in key order, as `rows(keys:)` gives
    /// them. The identities are one after another, each its identification's values in order (one
    /// array, not one per identity: an import asks for tens of thousands).
    func rows(of entity: Entity, identities: [AttributeValue]) throws(MappingError) -> [StoredObject]
    /// Every row of the store.
    func allRows() throws(MappingError) -> [StoredObject]
    /// The keys of the rows of `kinds` (entities sharing `entity`'s table) that `filter` keeps
    /// (every one without a filter; its attributes are `entity`'s), sorted by `order` and then by
    /// key, from `offset`, at most `limit`.
    func keys(of entity: Entity, kinds: [Entity], where filter: RowFilter?, order: [RowOrder], offset: Int,
              limit: Int?) throws(MappingError) -> [Int64]
    /// How many rows of `kinds` `filter` keeps.
    func count(of entity: Entity, kinds: [Entity], where filter: RowFilter?) throws(MappingError) -> Int
    /// One attribute of `entity` (its table's column) for the rows with these keys, by key; rows
    /// that are gone are left out.
    func column(_ attribute: Int, of entity: Entity, keys: [Int64]) throws(MappingError) -> [Int64: AttributeValue?]
    /// Told once the rows of a read of every row are gone (a store may give their memory back).
    func rowsReleased()
    /// The faults a write that failed met (rows another process gave an identity the call made
    /// new, which the graph holds unread), once: the call reads them and runs again.
    func faultsMet() -> [ObjectID]
    /// Whether this context is the store's only writer (an SQLite file, locked while open): then a
    /// graph that has read every row knows every identity the store will hold, whatever it evicts.
    var writtenOnlyHere: Bool { get }
    /// Told that the graph turned these objects back into faults (`ObjectCache`): it holds their
    /// rows no more, and reads them again when touched.
    func evicted(_ objects: [ObjectID])
    /// Whether the store may hold rows the graph has not read: false only for an empty store no
    /// other process writes, whose graph holds everything from the start.
    func holdsRows() throws(MappingError) -> Bool
}

extension RowSource {
    public func faultsMet() -> [ObjectID] { [] }
    public func evicted(_ objects: [ObjectID]) {}
    public var writtenOnlyHere: Bool { false }
}
