import MappingArena

/// The identity-map entries whose key is one integer (most APIs identify objects by an integer id):
/// open addressing with linear probing (`LinearProbing`) over one flat array of key–object pairs (a
/// probe touches one cache line), hashed by a seeded multiply-and-shift mix instead of SipHash. A raw handle of 0
/// (never a valid one) marks an empty slot.
package struct IntegerKeyTable {
    private struct Entry {
        var key: Int64
        var object: UInt64
    }

    private var slots: [Entry] = []
    package private(set) var count = 0

    package init() {}

    /// Mixed into every hash, so that ids cannot be chosen to collide in every process (from
    /// Swift's own per-process random seed; SWIFT_DETERMINISTIC_HASHING fixes it).
    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x6964 as UInt16)
        return UInt64(UInt(bitPattern: hasher.finalize()))
    }()

    @inline(__always)
    private func home(_ key: Int64, mask: Int) -> Int {
        Int(truncatingIfNeeded: Bytes.mix(UInt64(bitPattern: key) ^ Self.seed)) & mask
    }

    /// The slot holding `key`, or the empty slot where it would go.
    @inline(__always)
    private func position(of key: Int64) -> Int {
        let mask = slots.count - 1
        var probe = home(key, mask: mask)
        while slots[probe].object != 0 && slots[probe].key != key { probe = (probe + 1) & mask }
        return probe
    }

    @inline(__always) package subscript(key: Int64) -> ObjectID? {
        guard count > 0 else { return nil }
        let found = slots[position(of: key)].object
        return found == 0 ? nil : ObjectID(raw: found)
    }

    /// Sets the object for `key`; returns the one it replaces.
    @discardableResult
    package mutating func set(_ object: ObjectID, for key: Int64) -> ObjectID? {
        if LinearProbing.isFull(count: count, slots: slots.count) { grow(to: LinearProbing.grown(slots.count)) }
        let probe = position(of: key)
        let previous = slots[probe].object
        if previous == 0 { count += 1 }
        slots[probe] = Entry(key: key, object: object.raw)
        return previous == 0 ? nil : ObjectID(raw: previous)
    }

    /// Removes `key`; returns the object it named. Later entries of its probe run move back into the
    /// gap (no tombstones, so lookups never slow down after many removals).
    @discardableResult
    package mutating func remove(_ key: Int64) -> ObjectID? {
        guard count > 0 else { return nil }
        var gap = position(of: key)
        let removed = slots[gap].object
        guard removed != 0 else { return nil }
        let mask = slots.count - 1
        var next = (gap + 1) & mask
        while slots[next].object != 0 {
            if LinearProbing.fillsGap(gap, from: next, home: home(slots[next].key, mask: mask)) {
                slots[gap] = slots[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        slots[gap].object = 0
        count -= 1
        return ObjectID(raw: removed)
    }

    /// Room for `additional` more entries without growing.
    package mutating func reserve(additional: Int) {
        if let size = LinearProbing.size(holding: additional, beyond: count, slots: slots.count) { grow(to: size) }
    }

    private mutating func grow(to size: Int) {
        let old = slots
        slots = Array(repeating: Entry(key: 0, object: 0), count: size)
        for entry in old where entry.object != 0 { slots[position(of: entry.key)] = entry }
    }

    /// Every entry, in no particular order.
    var entries: [(key: Int64, object: ObjectID)] {
        slots.compactMap { $0.object == 0 ? nil : ($0.key, ObjectID(raw: $0.object)) }
    }

    /// Keeps only the entries whose object `keep` accepts.
    mutating func filter(_ keep: (ObjectID) -> Bool) {
        let kept = entries.filter { keep($0.object) }
        self = IntegerKeyTable()
        reserve(additional: kept.count)
        for entry in kept { set(entry.object, for: entry.key) }
    }
}
