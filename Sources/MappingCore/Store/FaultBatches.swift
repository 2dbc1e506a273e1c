/// The fetch results whose objects were faults when they were made, so that reading one of them
/// reads the next ones of its result with it, `size` rows per query (Core Data's batch faulting):
/// a program that walks a result of 10,000 objects reads them in 100 queries, not 10,000. A result
/// is remembered as its objects in order; each object's place in it is indexed only when a fault
/// not indexed yet is read (results newest first, each indexed once), so a fetch whose objects are
/// never read one by one (`values` reads a column) pays nothing per object. A large result whose
/// slots increase (its faults were made in its order, as a fetch of rows not read makes them) is
/// not indexed at all: a place in it is found by binary search (only large ones, so that few are
/// searched). An object leaves once its row is read. Bounded: past `limit` objects in the results
/// remembered, the oldest results are forgotten (their faults are then read one at a time, as any
/// other fault).
package struct FaultBatches {
    package static let size = 100
    static let limit = 1 << 20
    /// Results this long or longer whose slots increase are searched rather than indexed.
    static let searchedFrom = 1 << 12

    /// The slot number of the store's first slot (`HandleSpace`): places are indexed by slot.
    private let base: Int
    /// Each result remembered, by number, oldest first in `order`; `unindexed` those whose places
    /// are not in `places` yet.
    private var results: [UInt32: [ObjectID]] = [:]
    private var order: [UInt32] = []
    private var unindexed: [UInt32] = []
    /// How many objects `results` holds in all.
    private var held = 0
    /// Per slot (from `base`), the indexed object's result and place there, packed as
    /// (result + 1) << 32 | index; 0 for none. A flat array: 8 bytes per slot, where a dictionary
    /// of a 1M-object result took 32 MB and twice that while it grew.
    private var places: [UInt64] = []
    /// The results whose objects' slots increase, with how many of their faults are not read yet:
    /// searched, not indexed, and forgotten once none is left.
    private var sorted: [UInt32: Int] = [:]
    /// How many entries of `places` are set.
    private var indexed = 0
    private var next: UInt32 = 0

    package init(base: Int = 0) { self.base = base }

    /// The index of an object's entry in `places`, if its slot can have one.
    private func entry(_ object: ObjectID) -> Int? {
        let index = object.slot - base
        return index >= 0 && index < Int(UInt32.max) ? index : nil
    }

    /// What `places` holds for `object`'s slot, whichever of the slot's objects it was set for.
    private func entered(_ object: ObjectID) -> (result: UInt32, index: Int)? {
        guard let entry = entry(object), places.indices.contains(entry), places[entry] != 0 else { return nil }
        let packed = places[entry]
        return (UInt32(truncatingIfNeeded: packed >> 32) &- 1, Int(packed & 0xFFFF_FFFF))
    }

    /// `object`'s result and place there, if indexed. A slot outlives its objects (a deleted one's
    /// slot is reused under a new generation), so the entry counts only if the result names this
    /// very handle there.
    private func place(of object: ObjectID) -> (result: UInt32, index: Int)? {
        guard let place = entered(object), let members = results[place.result], members.indices.contains(place.index),
              members[place.index] == object else { return nil }
        return place
    }

    private mutating func setPlace(_ object: ObjectID, _ place: (result: UInt32, index: Int)?) {
        guard let entry = entry(object) else { return }
        if entry >= places.count {
            guard place != nil else { return }
            places.append(contentsOf: repeatElement(0, count: entry + 1 - places.count))
        }
        let packed = place.map { (UInt64($0.result) + 1) << 32 | UInt64(truncatingIfNeeded: $0.index) } ?? 0
        if places[entry] == 0 && packed != 0 { indexed += 1 }
        if places[entry] != 0 && packed == 0 { indexed -= 1 }
        places[entry] = packed
    }

    /// Where `object` is in a result whose slots increase, if in one (the newest first).
    private func sortedPlace(of object: ObjectID) -> (result: UInt32, index: Int)? {
        guard !sorted.isEmpty else { return nil }
        for number in order.reversed() where sorted[number] != nil {
            guard let members = results[number] else { continue }
            var low = 0
            var high = members.count
            while low < high {
                let middle = low + (high - low) / 2
                if members[middle].slot < object.slot { low = middle + 1 } else { high = middle }
            }
            if members.indices.contains(low), members[low] == object { return (number, low) }
        }
        return nil
    }

    /// Forgets result `number`.
    private mutating func forget(_ number: UInt32) {
        order.removeAll { $0 == number }
        unindexed.removeAll { $0 == number }
        sorted[number] = nil
        let forgotten = results[number] ?? []
        for object in forgotten where place(of: object)?.result == number { setPlace(object, nil) }
        results[number] = nil
        held -= forgotten.count
    }

    /// Remembers a result holding `faults` faults (only worth it when more than one of its
    /// objects is a fault).
    mutating func remember(_ objects: [ObjectID], faults: Int) {
        guard faults > 1, objects.count < Self.limit else { return }
        while held + objects.count > Self.limit, let oldest = order.first { forget(oldest) }
        // Numbers wrap after 2^32 - 1 results; by then the old ones were long forgotten.
        let number = next
        next = next == UInt32.max - 1 ? 0 : next + 1
        results[number] = objects
        held += objects.count
        order.append(number)
        if objects.count >= Self.searchedFrom, zip(objects, objects.dropFirst()).allSatisfy({ $0.slot < $1.slot }) {
            sorted[number] = faults
        } else {
            unindexed.append(number)
        }
    }

    /// Up to `size` objects of `object`'s result, from `object` on (those `isFault` keeps).
    mutating func batch(from object: ObjectID, isFault: (ObjectID) -> Bool) -> [ObjectID] {
        while place(of: object) == nil, sortedPlace(of: object) == nil, let newest = unindexed.popLast() {
            for (index, member) in (results[newest] ?? []).enumerated() where isFault(member) && place(of: member) == nil {
                // A slot's entry for an object of an earlier generation is replaced.
                setPlace(member, (newest, index))
            }
        }
        guard let place = place(of: object) ?? sortedPlace(of: object), let result = results[place.result],
              result.indices.contains(place.index) else {
            return [object]
        }
        var batch: [ObjectID] = []
        for candidate in result[place.index...] where isFault(candidate) {
            batch.append(candidate)
            if batch.count == Self.size { break }
        }
        return batch
    }

    /// Forgets objects whose rows were read (once nothing is left to read, every result goes).
    mutating func read(_ objects: [ObjectID]) {
        // The entry goes whichever generation of the slot it was set for: one set for an earlier
        // object of the slot is stale (that object is gone, or the slot would not be reused).
        for object in objects {
            setPlace(object, nil)
            if let (number, _) = sortedPlace(of: object), let pending = sorted[number] {
                if pending > 1 { sorted[number] = pending - 1 } else { forget(number) }
            }
        }
        if indexed == 0 && unindexed.isEmpty && sorted.isEmpty {
            results = [:]
            order = []
            held = 0
            places = []
        }
    }
}
