/// The fetch results whose objects were faults when they were made, so that reading one of them
/// reads the next ones of its result with it, `size` rows per query (Core Data's batch faulting):
/// a program that walks a result of 10,000 objects reads them in 100 queries, not 10,000. A result
/// is remembered as its objects in order; each object's place in it is indexed only when a fault
/// not indexed yet is read (results newest first, each indexed once), so a fetch whose objects are
/// never read one by one (`values` reads a column) pays nothing per object. An object leaves once
/// its row is read. Bounded: past `limit` objects in the results remembered, the oldest results are
/// forgotten (their faults are then read one at a time, as any other fault).
package struct FaultBatches {
    package static let size = 100
    static let limit = 1 << 20

    /// Each result remembered, by number, oldest first in `order`; `unindexed` those whose places
    /// are not in `places` yet.
    private var results: [Int: [ObjectID]] = [:]
    private var order: [Int] = []
    private var unindexed: [Int] = []
    /// How many objects `results` holds in all.
    private var held = 0
    /// Each indexed object's result and place there, packed (result << 32 | index).
    private var places: [ObjectID: Int] = [:]
    private var next = 0

    package init() {}

    /// Remembers a result (only worth it when more than one of its objects is a fault).
    mutating func remember(_ objects: [ObjectID]) {
        guard objects.count > 1, objects.count < Self.limit, objects.count < Int(UInt32.max) else { return }
        while held + objects.count > Self.limit, let oldest = order.first {
            order.removeFirst()
            unindexed.removeAll { $0 == oldest }
            let forgotten = results.removeValue(forKey: oldest) ?? []
            held -= forgotten.count
            for object in forgotten where places[object].map({ $0 >> 32 }) == oldest { places[object] = nil }
        }
        let number = next
        next += 1
        results[number] = objects
        held += objects.count
        order.append(number)
        unindexed.append(number)
    }

    /// Up to `size` objects of `object`'s result, from `object` on (those `isFault` keeps).
    mutating func batch(from object: ObjectID, isFault: (ObjectID) -> Bool) -> [ObjectID] {
        while places[object] == nil, let newest = unindexed.popLast() {
            for (index, member) in (results[newest] ?? []).enumerated() where isFault(member) && places[member] == nil {
                places[member] = newest << 32 | index
            }
        }
        guard let place = places[object], let result = results[place >> 32] else { return [object] }
        let start = place & 0xFFFF_FFFF
        guard result.indices.contains(start) else { return [object] }
        var batch: [ObjectID] = []
        for candidate in result[start...] where isFault(candidate) {
            batch.append(candidate)
            if batch.count == Self.size { break }
        }
        return batch
    }

    /// Forgets objects whose rows were read (once nothing is left to read, every result goes).
    mutating func read(_ objects: [ObjectID]) {
        for object in objects { places[object] = nil }
        if places.isEmpty && unindexed.isEmpty {
            results = [:]
            order = []
            held = 0
        }
    }
}
