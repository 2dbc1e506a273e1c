import MappingCore

/// Which object each row of a store became, both ways: the store's key (`StoreLayout.globalKey`)
/// of each object read or written, and the object of each key. A store consults it for every row
/// it reads and every object it writes, so both directions are `IntegerKeyTable`s (a multiply
/// hash over flat arrays) rather than dictionaries, which paid a SipHash per lookup: reading a
/// column for 10,000 faults spent most of its time hashing here.
package struct RowKeys {
    private var objects = IntegerKeyTable()
    /// Keyed by the object's raw handle; the value holds the row's key (never 0: `_id`s start at 1).
    private var keys = IntegerKeyTable()

    package init() {}

    package var count: Int { objects.count }

    package func object(forKey key: Int64) -> ObjectID? { objects[key] }

    package func key(of object: ObjectID) -> Int64? {
        keys[Int64(bitPattern: object.raw)].map { Int64(bitPattern: $0.raw) }
    }

    /// Records that `object` is the row `key`.
    package mutating func set(_ object: ObjectID, key: Int64) {
        guard key != 0 else { return }
        objects.set(object, for: key)
        keys.set(ObjectID(raw: UInt64(bitPattern: key)), for: Int64(bitPattern: object.raw))
    }

    /// Forgets `object` and its row; the key it had.
    @discardableResult
    package mutating func remove(_ object: ObjectID) -> Int64? {
        guard let key = key(of: object) else { return nil }
        keys.remove(Int64(bitPattern: object.raw))
        if objects[key] == object { objects.remove(key) }
        return key
    }

    package mutating func reserve(additional: Int) {
        objects.reserve(additional: additional)
        keys.reserve(additional: additional)
    }
}
