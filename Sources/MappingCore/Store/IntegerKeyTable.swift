/// The identity-map entries whose key is one integer (most APIs identify objects by an integer id):
/// open addressing with linear probing over two flat arrays, hashed by a seeded multiply-and-shift
/// mix instead of SipHash. A raw handle of 0 (never a valid one) marks an empty slot.
struct IntegerKeyTable {
    private var keys: [Int64] = []
    private var objects: [UInt64] = []
    private(set) var count = 0

    /// Mixed into every hash, so that ids cannot be chosen to collide in every process (from
    /// Swift's own per-process random seed; SWIFT_DETERMINISTIC_HASHING fixes it).
    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x6964 as UInt16)
        return UInt64(UInt(bitPattern: hasher.finalize()))
    }()

    @inline(__always)
    private func home(_ key: Int64, mask: Int) -> Int {
        var x = UInt64(bitPattern: key) ^ Self.seed
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ (x >> 31)) & mask
    }

    /// The slot holding `key`, or the empty slot where it would go.
    @inline(__always)
    private func position(of key: Int64) -> Int {
        let mask = keys.count - 1
        var probe = home(key, mask: mask)
        while objects[probe] != 0 && keys[probe] != key { probe = (probe + 1) & mask }
        return probe
    }

    subscript(key: Int64) -> ObjectID? {
        guard count > 0 else { return nil }
        let probe = position(of: key)
        return objects[probe] == 0 ? nil : ObjectID(raw: objects[probe])
    }

    /// Sets the object for `key`; returns the one it replaces.
    @discardableResult
    mutating func set(_ object: ObjectID, for key: Int64) -> ObjectID? {
        if (count + 1) * 4 > keys.count * 3 { grow(to: Swift.max(16, keys.count * 2)) }
        let probe = position(of: key)
        let previous = objects[probe]
        if previous == 0 { count += 1 }
        keys[probe] = key
        objects[probe] = object.raw
        return previous == 0 ? nil : ObjectID(raw: previous)
    }

    /// Removes `key`; returns the object it named. Later entries of its probe run move back into the
    /// gap (no tombstones, so lookups never slow down after many removals).
    @discardableResult
    mutating func remove(_ key: Int64) -> ObjectID? {
        guard count > 0 else { return nil }
        var gap = position(of: key)
        let removed = objects[gap]
        guard removed != 0 else { return nil }
        let mask = keys.count - 1
        var next = (gap + 1) & mask
        while objects[next] != 0 {
            let wanted = home(keys[next], mask: mask)
            // The entry at `next` may fill the gap when its home is not in the cyclic range (gap, next].
            if (next > gap && (wanted <= gap || wanted > next)) || (next < gap && wanted <= gap && wanted > next) {
                keys[gap] = keys[next]
                objects[gap] = objects[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        objects[gap] = 0
        count -= 1
        return ObjectID(raw: removed)
    }

    /// Room for `additional` more entries without growing.
    mutating func reserve(additional: Int) {
        let (total, overflow) = count.addingReportingOverflow(additional)
        guard !overflow, additional > 0, total < 1 << 40 else { return }
        let wanted = total * 4
        var size = Swift.max(16, keys.count)
        while size * 3 < wanted, size < 1 << 40 { size *= 2 }
        if size > keys.count { grow(to: size) }
    }

    private mutating func grow(to size: Int) {
        let oldKeys = keys, oldObjects = objects
        keys = Array(repeating: 0, count: size)
        objects = Array(repeating: 0, count: size)
        for (key, object) in zip(oldKeys, oldObjects) where object != 0 {
            let probe = position(of: key)
            keys[probe] = key
            objects[probe] = object
        }
    }

    /// Every entry, in no particular order.
    var entries: [(key: Int64, object: ObjectID)] {
        zip(keys, objects).compactMap { $0.1 == 0 ? nil : ($0.0, ObjectID(raw: $0.1)) }
    }

    /// Keeps only the entries whose object `keep` accepts.
    mutating func filter(_ keep: (ObjectID) -> Bool) {
        let kept = entries.filter { keep($0.object) }
        self = IntegerKeyTable()
        reserve(additional: kept.count)
        for entry in kept { set(entry.object, for: entry.key) }
    }
}
