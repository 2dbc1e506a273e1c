/// The session flags a graph carries beside its objects: whether a transaction spans calls and who
/// opened it, whether the context's observers want change sets (and the ones waiting for them),
/// a refusal of changes for the call under way, and the database every commit is written to.
/// Set by the context under its lock; read by the graph's commit (`ObjectStore+Transaction`).
package struct StoreSession {
    /// True while a transaction opened with `begin()` spans calls.
    package var explicitTransaction = false
    /// Whether the caller opened it (a failing call then says it rolled the caller's transaction
    /// back), rather than a chunked import for its own chunks.
    package var transactionIsCallers = true
    /// The error of a call that failed inside the caller's transaction and rolled it back. The
    /// transaction stays open, refusing changes, until the caller ends it: its later calls must
    /// neither join a transaction that is gone nor be committed one by one behind its back.
    package var abortedBy: MappingError?
    /// Set while the context has observers: each commit then leaves its change set in
    /// `committedChanges`, for the context to hand to them once its lock is released.
    package var collectsChanges = false
    /// Set for a call that may not change the graph (an observer too many commits deep): a
    /// commit with a non-empty change set fails with it and is rolled back.
    package var changeRefusal: MappingError?
    package var committedChanges: [ChangeSet] = []
    /// The database every commit is written to, if the context has one.
    package var persistent: (any PersistentStore)?
    /// Where a store-backed graph reads the rows it has not read yet, while it has not read them
    /// all (`ObjectStore+Faults`); nil for a graph that holds everything.
    package var rowSource: (any RowSource)?
    /// The cache limit of a graph backed by a store it reads rows from, and the objects' recency
    /// (`ObjectCache`); nil for any other graph.
    package var cache: ObjectCache?
    /// The most objects such a graph keeps read between calls; 0: no limit.
    package var cacheLimit = ObjectCache.defaultLimit
    /// Set once a graph that held every row of a store only it writes starts evicting: its identity
    /// maps keep the identities of evicted objects (under their faults), so they still hold every
    /// identity the store has, and a lookup in vain needs no query (`ObjectCache`).
    package var identitiesComplete = false
    /// Fetch results made of faults, read a batch at a time as their objects are read.
    package var faultBatches = FaultBatches()
    /// Set while a call runs on a graph that holds part of its rows: what the call met that the
    /// graph has not read (`ObjectStore.touching`).
    package var faultLog: FaultLog?
    /// Set once a read left a list unread (`ObjectStore+Lists`), so that a context that starts
    /// collecting change sets looks for such lists only when there may be some.
    package var mayHoldUnreadLists = false
    /// While a call runs again (`ObjectStore.touching`): the one-to-manys it set whole, read with
    /// their owners' rows.
    package var listsReadWithRows: Set<ListKind> = []
    /// Set while other processes' commits are applied (`ObjectStore+Refresh`): they came from the
    /// database, so the commit that applies them writes nothing back.
    package var applyingStoreChanges = false

    package init() {}
}
