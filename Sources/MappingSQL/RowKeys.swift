import MappingCore

/// Which object each row of a store became, both ways: the store's key (`StoreLayout.globalKey`)
/// of each object read or written, and the object of each key. A store consults it for every row
/// it reads and every object it writes. Keys to objects is an `IntegerKeyTable` (a multiply hash
/// over flat arrays; a dictionary paid a SipHash per lookup). Objects to keys is a flat array by
/// handle slot: a store's graph gives out slots densely from its first, so it costs 8 bytes a slot
/// where a second table cost 32 an entry and twice that while it grew (a walk over a million rows
/// held 64 MB in the two tables).
package struct RowKeys {
    private var objects = IntegerKeyTable()
    /// Per handle slot from `base`, the key of the row its object was last given (0: none). The
    /// slot's object may have changed since (a handle's generation): `key(of:)` checks that the
    /// key's object is the one asked about.
    private var keys: [Int64] = []
    private var base = 0

    package init() {}

    package var count: Int { objects.count }

    package func object(forKey key: Int64) -> ObjectID? { objects[key] }

    package func key(of object: ObjectID) -> Int64? {
        let index = Self.slot(of: object) - base
        guard keys.indices.contains(index) else { return nil }
        let key = keys[index]
        guard key != 0, objects[key] == object else { return nil }
        return key
    }

    /// Records that `object` is the row `key`.
    package mutating func set(_ object: ObjectID, key: Int64) {
        guard key != 0 else { return }
        objects.set(object, for: key)
        let slot = Self.slot(of: object)
        if keys.isEmpty { base = slot }
        if slot < base {
            keys.insert(contentsOf: repeatElement(0, count: base - slot), at: 0)
            base = slot
        }
        let index = slot - base
        if index >= keys.count { keys.append(contentsOf: repeatElement(0, count: index + 1 - keys.count)) }
        keys[index] = key
    }

    /// Forgets `object` and its row; the key it had.
    @discardableResult
    package mutating func remove(_ object: ObjectID) -> Int64? {
        guard let key = key(of: object) else { return nil }
        keys[Self.slot(of: object) - base] = 0
        objects.remove(key)
        return key
    }

    package mutating func reserve(additional: Int) {
        objects.reserve(additional: additional)
    }

    /// A handle's slot number (its low 32 bits).
    private static func slot(of object: ObjectID) -> Int { Int(UInt32(truncatingIfNeeded: object.raw)) }
}
