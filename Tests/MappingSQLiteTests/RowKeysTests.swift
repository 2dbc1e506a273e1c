import MappingCore
import MappingSQL
import XCTest

/// Which object each row became, both ways (`RowKeys`): objects to keys is an array by handle slot,
/// so a handle whose slot now holds another object (a later generation) must find no key.
final class RowKeysTests: XCTestCase {
    private func handle(slot: UInt32, generation: UInt16 = 1, tag: UInt16 = 7) -> ObjectID {
        ObjectID(raw: UInt64(tag) << 48 | UInt64(generation) << 32 | UInt64(slot))
    }

    func testKeysAndObjectsBothWaysInAnySlotOrder() {
        let keys = RowKeys()
        // Slots arrive out of order, the lowest last: the array grows at both ends.
        for (slot, key) in [(1_000, Int64(11)), (1_005, 12), (998, 13), (1_001, 14)] {
            keys.set(handle(slot: UInt32(slot)), key: key)
        }
        XCTAssertEqual(keys.count, 4)
        for (slot, key) in [(1_000, Int64(11)), (1_005, 12), (998, 13), (1_001, 14)] {
            XCTAssertEqual(keys.key(of: handle(slot: UInt32(slot))), key)
            XCTAssertEqual(keys.object(forKey: key), handle(slot: UInt32(slot)))
        }
        XCTAssertNil(keys.key(of: handle(slot: 999)), "a slot between the ones set has no key")
        XCTAssertNil(keys.key(of: handle(slot: 5)), "a slot below every one set has no key")
        XCTAssertNil(keys.key(of: handle(slot: 4_000_000_000)), "a slot far above has no key")
    }

    func testAStaleHandleOfTheSameSlotHasNoKey() {
        let keys = RowKeys()
        keys.set(handle(slot: 3, generation: 1), key: 21)
        XCTAssertNil(keys.key(of: handle(slot: 3, generation: 2)), "another generation of the slot")
        XCTAssertNil(keys.key(of: handle(slot: 3, generation: 1, tag: 8)), "another context's handle")
        // The slot's later object gets its own row; the old handle then has none.
        keys.set(handle(slot: 3, generation: 2), key: 22)
        XCTAssertEqual(keys.key(of: handle(slot: 3, generation: 2)), 22)
        XCTAssertNil(keys.key(of: handle(slot: 3, generation: 1)))
    }

    func testRemovingForgetsBothWays() {
        let keys = RowKeys()
        keys.set(handle(slot: 40), key: 31)
        keys.set(handle(slot: 41), key: 32)
        XCTAssertEqual(keys.remove(handle(slot: 40)), 31)
        XCTAssertNil(keys.key(of: handle(slot: 40)))
        XCTAssertNil(keys.object(forKey: 31))
        XCTAssertNil(keys.remove(handle(slot: 40)), "removed once")
        XCTAssertEqual(keys.key(of: handle(slot: 41)), 32)
        XCTAssertEqual(keys.count, 1)
        keys.set(handle(slot: 42), key: 0)
        XCTAssertNil(keys.key(of: handle(slot: 42)), "key 0 is no row")
    }

    /// Keys whose `_id`s lie far apart (a few random rows of a large table) are kept apart from the
    /// dense ones, and found alike: also once the dense ones reach past them, in every root table.
    func testSparseAndDenseKeysAlike() {
        let keys = RowKeys()
        let far = Int64(1) << 48 | 900_000  // root 1, an _id far beyond the rows known
        keys.set(handle(slot: 1), key: far)
        keys.set(handle(slot: 2), key: 5)
        XCTAssertEqual(keys.object(forKey: far), handle(slot: 1))
        XCTAssertEqual(keys.key(of: handle(slot: 1)), far)
        // Rows 1…5,000 of root 1 read in order: the dense array grows over _ids the table held.
        for id in 1...5_000 { keys.set(handle(slot: UInt32(10 + id)), key: Int64(1) << 48 | Int64(id)) }
        XCTAssertEqual(keys.count, 5_002)
        XCTAssertEqual(keys.object(forKey: Int64(1) << 48 | 4_321), handle(slot: 4_331))
        XCTAssertEqual(keys.object(forKey: far), handle(slot: 1))
        XCTAssertNil(keys.object(forKey: Int64(1) << 48 | 5_001))
        XCTAssertNil(keys.object(forKey: Int64(2) << 48 | 5), "another root table")
        XCTAssertNil(keys.object(forKey: -5), "no row has a negative key")
        keys.set(handle(slot: 9), key: -5)
        XCTAssertEqual(keys.object(forKey: -5), handle(slot: 9), "kept apart, not refused")
        XCTAssertEqual(keys.remove(handle(slot: 1)), far)
        XCTAssertNil(keys.object(forKey: far))
        XCTAssertEqual(keys.remove(handle(slot: 4_331)), Int64(1) << 48 | 4_321)
        XCTAssertNil(keys.object(forKey: Int64(1) << 48 | 4_321))
        XCTAssertEqual(keys.count, 5_001)
    }
}
