/// The cache of a store-backed graph: past its limit of objects read (`StoreSession.cacheLimit`),
/// the graph turns the ones least recently used back into faults at the end of a call
/// (`ObjectStore.trimCache`), so its memory follows the working set rather than what was ever
/// read. Every object the graph holds outside a transaction is in its database as the graph holds
/// it (each call commits), so any of them may go; a handle stays valid and reads its row again
/// when touched.
///
/// Recency is kept as the CLOCK algorithm keeps it (as operating systems keep pages): objects
/// queue in the order they were read or made, and each has a bit set whenever it is used; the one
/// at the head is evicted if its bit is clear, else it goes to the back with its bit cleared. A use
/// costs one store to an array; no list is reordered on a read.
///
/// A class held by the graph's session, so that the graph's read accessors (not mutating) can note
/// a use. Its fields have no run-time exclusivity checks (as `StringArena`'s): a use is noted on
/// every value read or set, where a check cost more than the note, and every access is a short
/// method call under the context's lock that never overlaps another.
package final class ObjectCache {
    /// The database an evicted object reads its row from again.
    let source: any RowSource
    /// Objects read or made, oldest from `head`; the evicted, the deleted and the ones met again
    /// are skipped as they come up.
    @exclusivity(unchecked) private var queue: [ObjectID] = []
    @exclusivity(unchecked) private var head = 0
    /// Per slot (from the store's first), whether its object was used since it last came up.
    @exclusivity(unchecked) private var used: [Bool] = []

    /// The default limit: 100,000 objects, some 40 MB of a typical graph (the people benchmark's
    /// objects take about 420 bytes each).
    package static let defaultLimit = 100_000

    package init(source: any RowSource) {
        self.source = source
    }

    /// Notes that the object in `slot` was used.
    @inline(__always) func touch(_ slot: Int) {
        if used.indices.contains(slot) { used[slot] = true }
    }

    /// Queues an object just read or made, in `slot`.
    func enqueue(_ id: ObjectID, slot: Int) {
        if slot >= used.count { used.append(contentsOf: repeatElement(false, count: slot + 1 - used.count)) }
        queue.append(id)
    }

    /// The object at the head of the queue, taken off it; nil once it is empty.
    func next() -> ObjectID? {
        guard head < queue.count else { return nil }
        let id = queue[head]
        head += 1
        // The taken part is dropped once it is most of the array, so the queue's memory follows
        // the objects queued.
        if head > 1024 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return id
    }

    /// How many objects are queued (some of them gone or evicted since).
    var queued: Int { queue.count - head }

    /// Drops the queued objects `keep` refuses (gone, or not read), in order.
    func compact(keeping keep: (ObjectID) -> Bool) {
        queue = queue[head...].filter(keep)
        head = 0
    }

    /// Whether the object in `slot` was used since it last came up; clears the bit.
    func takeUse(_ slot: Int) -> Bool {
        guard used.indices.contains(slot), used[slot] else { return false }
        used[slot] = false
        return true
    }
}

extension ObjectStore {
    /// Evicts objects, least recently used first, until the graph holds 90% of its cache limit
    /// (the margin spreads the walk of the member lists over many evictions). Only between calls
    /// and outside transactions, where every object held is as its row: nothing uncommitted is
    /// ever evicted. The graph then holds part of its rows and reads the rest as touched.
    package mutating func trimCache(model: Model) {
        let limit = session.cacheLimit
        guard let cache = session.cache, journal == nil, !session.explicitTransaction else { return }
        // Objects made and discarded (a touching run's, a rollback's) and deleted ones stay queued
        // until they come up: a graph below its limit drops them now and then, so the queue
        // follows the objects held.
        if cache.queued > 2 * readCount + 1024 {
            cache.compact { readEntity($0) != nil }
        }
        guard limit > 0, readCount > limit else { return }
        let target = limit - limit / 10
        // A graph holding every row of a store only it writes knows every identity there is: it
        // keeps them through eviction, so imports of new objects need no query to learn they are new.
        if session.rowSource == nil, cache.source.writtenOnlyHere { session.identitiesComplete = true }
        var entities: Set<Int> = []
        var evicted: [ObjectID] = []
        // Each queued object comes up at most twice (its use bit is cleared the first time).
        var steps = 2 * cache.queued + 1
        while readCount > target, steps > 0, let id = cache.next() {
            steps -= 1
            guard let slot = liveSlot(of: id), let entity = readEntity(id) else { continue }
            // An object the database has no row for yet stays (a commit writes every object, so
            // none should be here); it leaves the queue and is never evicted.
            guard cache.source.key(of: id) != nil else { continue }
            if cache.takeUse(slot) {
                cache.enqueue(id, slot: slot)
                continue
            }
            evict(id, model: model)
            entities.insert(entity)
            evicted.append(id)
        }
        guard !evicted.isEmpty else { return }
        dropEvicted(from: entities)
        cache.source.evicted(evicted)
        // What was evicted is read again as touched, even if the graph had read every row.
        session.rowSource = cache.source
    }
}
