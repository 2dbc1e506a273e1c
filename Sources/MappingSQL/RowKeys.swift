import MappingCore

/// Which object each row of a store became, both ways: the store's key (`StoreLayout.globalKey`)
/// of each object read or written, and the object of each key. A store consults it for every row
/// it reads and every object it writes.
///
/// Keys to objects: a table's `_id`s are mostly dense (SQLite and PostgreSQL number rows from 1),
/// so an `_id` below about twice the rows known is found in an array by `_id` per root table, 8
/// bytes a row; the rest (ids far apart, as a few random rows of a large store have) in an
/// `IntegerKeyTable` (a multiply hash over flat arrays: 16 bytes an entry at three-quarters full,
/// which a walk over a million rows paid 32 MB for, and 48 while it grew). Objects to keys is a
/// flat array by handle slot: a store's graph gives out slots densely from its first, so it costs 8
/// bytes a slot where a second table cost 32 an entry and twice that while it grew.
///
/// A class, held by its store: as a struct in the store's property, each lookup copied it out (a
/// retain and release of each of its arrays, about 380 instructions, 3% of reading a store
/// whole). Its fields have no run-time exclusivity checks, as the string arena's have none: every
/// access is a short method call under the context's lock that never overlaps another.
package final class RowKeys {
    /// Per root table, per `_id`, the raw handle of its object (0: none).
    @exclusivity(unchecked) private var dense: [[UInt64]] = []
    @exclusivity(unchecked) private var denseCount = 0
    @exclusivity(unchecked) private var sparse = IntegerKeyTable()
    /// Per handle slot from `base`, the key of the row its object was last given (0: none). The
    /// slot's object may have changed since (a handle's generation): `key(of:)` checks that the
    /// key's object is the one asked about.
    @exclusivity(unchecked) private var keys: [Int64] = []
    @exclusivity(unchecked) private var base = 0

    package init() {}

    package var count: Int { denseCount + sparse.count }

    package func object(forKey key: Int64) -> ObjectID? {
        let (root, id) = Self.split(key)
        if dense.indices.contains(root), dense[root].indices.contains(id) {
            let raw = dense[root][id]
            if raw != 0 { return ObjectID(raw: raw) }
        }
        return sparse.count > 0 ? sparse[key] : nil
    }

    package func key(of object: ObjectID) -> Int64? {
        let index = Self.slot(of: object) - base
        guard keys.indices.contains(index) else { return nil }
        let key = keys[index]
        guard key != 0, self.object(forKey: key) == object else { return nil }
        return key
    }

    /// Records that `object` is the row `key`.
    package func set(_ object: ObjectID, key: Int64) {
        guard key != 0 else { return }
        setObject(object.raw, for: key)
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
    package func remove(_ object: ObjectID) -> Int64? {
        guard let key = key(of: object) else { return nil }
        keys[Self.slot(of: object) - base] = 0
        setObject(0, for: key)
        return key
    }

    /// Puts `raw` (0: none) under `key`: in its root's array when its `_id` is within about twice
    /// the rows known (the array grows to it), else in the hash table.
    private func setObject(_ raw: UInt64, for key: Int64) {
        let (root, id) = Self.split(key)
        let reach = 2 * count + 4096
        if root >= 0, root < Self.roots, id < reach || (dense.indices.contains(root) && id < dense[root].count) {
            if root >= dense.count { dense.append(contentsOf: repeatElement([], count: root + 1 - dense.count)) }
            if id >= dense[root].count { dense[root].append(contentsOf: repeatElement(0, count: id + 1 - dense[root].count)) }
            let previous = dense[root][id]
            dense[root][id] = raw
            if previous == 0 && raw != 0 { denseCount += 1 }
            if previous != 0 && raw == 0 { denseCount -= 1 }
            // An entry made while the `_id` was out of reach.
            if sparse.count > 0 { sparse.remove(key) }
            return
        }
        if raw == 0 { sparse.remove(key) } else { sparse.set(ObjectID(raw: raw), for: key) }
    }

    /// Root tables kept in arrays: a layout has one per entity hierarchy, far fewer.
    private static let roots = 1 << 12

    /// A key's root table and `_id` (`StoreLayout.globalKey`).
    private static func split(_ key: Int64) -> (root: Int, id: Int) {
        (StoreLayout.root(of: key), Int(truncatingIfNeeded: StoreLayout.rowID(of: key)))
    }

    /// A handle's slot number (its low 32 bits).
    private static func slot(of object: ObjectID) -> Int { Int(UInt32(truncatingIfNeeded: object.raw)) }
}
