import XCTest
import MappingArena
import MappingJSON
@testable import MappingEngine
import _MappingTestSupport
@testable import MappingCore

/// The columnar store's building blocks, against simple models of what they must do: the integer
/// identity table against a Dictionary, the string arena against the strings it was given, and a
/// column against an array of optional values.
final class ColumnStorageTests: XCTestCase {
    /// A deterministic generator, so that a failure repeats.
    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func testTheIntegerTableAgreesWithADictionaryThroughInsertsAndRemovals() {
        var random = SplitMix(state: 42)
        var table = IntegerKeyTable()
        var model: [Int64: ObjectID] = [:]
        // Few distinct keys, so runs collide, wrap around the table's end and close up on removal.
        for step in 0..<20_000 {
            let key = Int64.random(in: -300...300, using: &random)
            if Bool.random(using: &random) || step < 200 {
                let object = ObjectID(raw: UInt64(step + 1))
                XCTAssertEqual(table.set(object, for: key), model.updateValue(object, forKey: key), "set \(key) at step \(step)")
            } else {
                XCTAssertEqual(table.remove(key), model.removeValue(forKey: key), "remove \(key) at step \(step)")
            }
            XCTAssertEqual(table.count, model.count)
        }
        for key in Int64(-310)...310 { XCTAssertEqual(table[key], model[key], "lookup \(key)") }
        table.filter { $0.raw % 2 == 0 }
        for key in Int64(-310)...310 { XCTAssertEqual(table[key], model[key].flatMap { $0.raw % 2 == 0 ? $0 : nil }) }
    }

    func testTheIntegerTableHoldsExtremeKeysAndReservesRoom() {
        var table = IntegerKeyTable()
        table.reserve(additional: 1000)
        for (index, key) in [Int64.min, -1, 0, 1, Int64.max].enumerated() { table.set(ObjectID(raw: UInt64(index + 1)), for: key) }
        XCTAssertEqual(table[Int64.min]?.raw, 1)
        XCTAssertEqual(table[0]?.raw, 3)
        XCTAssertEqual(table[Int64.max]?.raw, 5)
        XCTAssertNil(table[2])
        table.reserve(additional: Int.max)  // absurd: ignored, not trapped
        XCTAssertEqual(table.count, 5)
    }

    func testTheStringTableAgreesWithADictionaryThroughInsertsAndRemovals() {
        var random = SplitMix(state: 7)
        let arena = StringArena()
        var table = StringKeyTable()
        var model: [String: ObjectID] = [:]
        let tag: UInt64 = 0x00A5 << 48
        // Few distinct keys of one length (as phone numbers), some long, one empty: runs collide,
        // wrap around and close up on removal, and keys are told apart by their bytes.
        func key(_ n: Int) -> String {
            n == 0 ? "" : n % 50 == 0 ? String(repeating: "long ", count: 40) + "\(n)" : "+1-555-\(1000 + n)"
        }
        for step in 0..<20_000 {
            let text = key(Int.random(in: 0...400, using: &random))
            if Bool.random(using: &random) || step < 200 {
                let object = ObjectID(raw: tag | UInt64(step + 1))
                // Filed now under a copy, now under the bytes a column would hold.
                let stored = step % 3 == 0 ? arena.store(text) : nil
                let filed = table.set(object, for: text, stored: stored, arena: arena)
                XCTAssertTrue(filed.filed)
                XCTAssertEqual(filed.previous, model.updateValue(object, forKey: text), "set \(text) at step \(step)")
            } else {
                XCTAssertEqual(table.remove(text, arena: arena), model.removeValue(forKey: text), "remove \(text) at step \(step)")
            }
            XCTAssertEqual(table.count, model.count)
        }
        for n in 0...410 { XCTAssertEqual(table.object(for: key(n), arena: arena), model[key(n)], "lookup \(key(n))") }
        XCTAssertEqual(Set(table.entries(arena: arena).map(\.key)), Set(model.keys))
        table.filter(arena: arena) { $0.raw % 2 == 0 }
        for n in 0...410 {
            XCTAssertEqual(table.object(for: key(n), arena: arena), model[key(n)].flatMap { $0.raw % 2 == 0 ? $0 : nil })
        }
        table.reserve(additional: Int.max, arena: arena)  // absurd: ignored, not trapped
        XCTAssertEqual(table.count, model.values.filter { $0.raw % 2 == 0 }.count)
    }

    func testArenaReferencesHoldEveryLengthAroundTheirLimits() {
        let arena = StringArena()
        // Lengths around 2^16 (the longest a shared chunk's reference holds) and a chunk's size.
        for count in [1, 65_534, 65_535, 65_536, 65_537, 262_143, 262_144, 300_000] {
            let text = String(repeating: "x", count: count - 1) + "y"
            guard let ref = arena.store(text) else { return XCTFail("\(count) bytes not stored") }
            XCTAssertEqual(ref.count, count)
            XCTAssertEqual(arena.string(ref), text, "\(count) bytes")
            guard let small = arena.store("after \(count)") else { return XCTFail("not stored") }
            XCTAssertEqual(arena.string(small), "after \(count)", "the chunk after \(count) bytes")
        }
        XCTAssertEqual(StringArena.Ref.empty.count, 0)
        XCTAssertEqual(arena.string(StringArena.Ref(bits: UInt64.max)), "", "a reference to no chunk reads as empty")
    }

    func testTheArenaGivesBackEveryStringAndStoresRepeatsOnce() {
        let arena = StringArena()
        var refs: [(StringArena.Ref, String)] = []
        let long = String(repeating: "long text ", count: 30_000)  // larger than a chunk's quarter: a chunk of its own
        for index in 0..<50_000 {
            let text = index % 10 == 0 ? "city \(index % 7)" : "person \(index) é ✓"
            guard let ref = arena.store(text) else { return XCTFail("not stored") }
            refs.append((ref, text))
        }
        guard let big = arena.store(long), let empty = arena.store("") else { return XCTFail("not stored") }
        for (ref, text) in refs {
            XCTAssertEqual(arena.string(ref), text)
            XCTAssertTrue(arena.equals(ref, text))
        }
        XCTAssertEqual(arena.string(big), long)
        XCTAssertEqual(arena.string(empty), "")
        XCTAssertEqual(arena.store("city 3"), arena.store("city 3"), "a repeated short string is stored once")
        XCTAssertEqual(String(cString: arena.cString(big)).count, long.count)
        // A Ref the arena did not make reads as empty, never as memory out of bounds.
        let foreign = StringArena()
        guard let elsewhere = foreign.store(long) else { return XCTFail("not stored") }
        let other = StringArena()
        XCTAssertEqual(other.string(elsewhere), "")
        withExtendedLifetime(other) { XCTAssertEqual(String(cString: other.cString(elsewhere)), "") }
    }

    func testAColumnOfUniqueStringsStopsSharingAndAColumnOfRepeatsKeepsOn() {
        let arena = StringArena()
        let rows = Column.sharingSample + 10
        var unique = Column(type: .string), repeating = Column(type: .string)
        for row in 0..<rows {
            unique.appendRows(1)
            repeating.appendRows(1)
            unique.set(.string("person\(row)@example.com"), at: row, arena: arena)
            repeating.set(.string(["home", "work", "mobile"][row % 3]), at: row, arena: arena)
        }
        // Past the sample, a repeated value in the unique column is stored anew; the others share.
        unique.set(.string("person0@example.com"), at: rows - 1, arena: arena)
        XCTAssertNotEqual(unique.stringRef(at: rows - 1), unique.stringRef(at: 0))
        XCTAssertEqual(unique.value(at: rows - 1, arena: arena), .string("person0@example.com"))
        XCTAssertEqual(repeating.stringRef(at: rows - 1), repeating.stringRef(at: (rows - 1) % 3))
    }

    func testAColumnKeepsEachTypeAndNull() {
        let arena = StringArena()
        let cases: [(AttributeType, AttributeValue)] = [
            (.integer, .integer(Int64.min)), (.double, .double(-0.5)), (.boolean, .boolean(true)), (.boolean, .boolean(false)),
            (.date, .date(Timestamp(microseconds: -1))), (.string, .string("naïve")),
            (.decimal, .decimal(ExactDecimal(parsing: "61.5") ?? ExactDecimal(0))), (.json, .json(.array([.integer(1)]))),
        ]
        for (type, value) in cases {
            var column = Column(type: type)
            column.appendRows(3)
            column.set(value, at: 1, arena: arena)
            XCTAssertNil(column.value(at: 0, arena: arena))
            XCTAssertEqual(column.value(at: 1, arena: arena), value, "\(type)")
            XCTAssertTrue(column.holds(value, at: 1, arena: arena))
            XCTAssertTrue(column.holds(nil, at: 2, arena: arena))
            // A value of another type is kept as it came rather than refused.
            column.set(.string("other"), at: 2, arena: arena)
            XCTAssertEqual(column.value(at: 2, arena: arena), .string("other"))
            column.set(nil, at: 1, arena: arena)
            XCTAssertNil(column.value(at: 1, arena: arena))
            XCTAssertNil(column.value(at: 99, arena: arena), "a row past the end reads as null")
        }
    }
}

/// String identities are filed under their bytes in the arena: short and long ones, and the empty
/// string, find their object again, survive a rollback and leave with a deletion.
final class StringIdentityTests: XCTestCase {
    private let spec = """
    {"entities": {"Tag": {"attributes": {"key": "string", "n": "integer"}, "identification": "key"}},
     "mappings": {"tag": {"entity": "Tag", "attributes": {"key": "key", "n": "n"}}}}
    """

    func testShortLongAndEmptyStringIdentities() throws {
        let ctx = try TestFixtures.context(spec)
        let long = String(repeating: "k", count: 100)
        let keys = ["a", "é", long, "", "b"]
        let payload = "[" + keys.enumerated().map { #"{"key": "\#($0.element)", "n": \#($0.offset)}"# }.joined(separator: ",") + "]"
        let first = try ctx.importJSON(mapping: "tag", payload)
        let again = try ctx.importJSON(mapping: "tag", payload)
        XCTAssertEqual(first, again, "a re-import finds every object by its identity")
        XCTAssertEqual(try ctx.count(of: "Tag"), 5)
        for (index, key) in keys.enumerated() {
            XCTAssertEqual(try ctx.object(of: "Tag", identity: .string(key)), first[index], "identity \(key.prefix(8))")
        }
        XCTAssertNil(try ctx.object(of: "Tag", identity: .string("never stored")))

        try ctx.begin()
        _ = try ctx.importJSON(mapping: "tag", #"[{"key": "c", "n": 9}, {"key": "\#(long)x", "n": 10}]"#)
        try ctx.delete(first[0])
        try ctx.rollback()
        XCTAssertNil(try ctx.object(of: "Tag", identity: .string("c")))
        XCTAssertNil(try ctx.object(of: "Tag", identity: .string(long + "x")))
        XCTAssertEqual(try ctx.object(of: "Tag", identity: .string("a")), first[0])

        try ctx.delete(first[2])
        XCTAssertNil(try ctx.object(of: "Tag", identity: .string(long)))
        XCTAssertEqual(try ctx.count(of: "Tag"), 4)
    }
}

/// Rollbacks with the columnar layout: an object made and deleted in one transaction gives its slot
/// back, a deleted object comes back into a row of its own, and values a rollback restores read as
/// they were.
final class ColumnRollbackTests: XCTestCase {
    private let spec = """
    {"entities": {"Item": {"attributes": {"id": "integer", "name": "string", "note": "string"},
                           "identification": "id"}},
     "mappings": {"item": {"entity": "Item", "attributes": {"id": "id", "name": "name", "note": "note"}}}}
    """

    func testAnObjectMadeAndDeletedInOneTransactionLeavesNoSlotBehind() throws {
        // The suite's invariant check (run after every call) counts live and free slots.
        let ctx = try TestFixtures.context(spec)
        try ctx.begin()
        let made = try ctx.create("Item", values: [JSONMember("id", .integer(1))])
        try ctx.delete(made)
        try ctx.rollback()
        XCTAssertEqual(try ctx.count(of: "Item"), 0)
        let again = try ctx.importJSON(mapping: "item", #"[{"id": 1, "name": "a"}]"#)
        XCTAssertEqual(again.count, 1)
        XCTAssertEqual(try ctx.count(of: "Item"), 1)
    }

    func testRowsPreparedAheadReadAsNullUntilSetAndSurviveGrowthAndRollback() throws {
        // A table prepares rows in steps (64, then an eighth more each time): 300 objects cross
        // several steps, a rolled-back import crosses more, and every row the new objects take must
        // read as null where the payload gave nothing.
        let ctx = try TestFixtures.context(spec)
        let named = (0..<300).map { #"{"id": \#($0), "name": "n\#($0)"}"# }
        let items = try ctx.importJSON(mapping: "item", "[" + named.joined(separator: ",") + "]")
        XCTAssertEqual(items.count, 300)
        try ctx.begin()
        _ = try ctx.importJSON(mapping: "item", "[" + (300..<700).map { #"{"id": \#($0), "note": "x"}"# }.joined(separator: ",") + "]")
        XCTAssertEqual(try ctx.count(of: "Item"), 700)
        try ctx.rollback()
        XCTAssertEqual(try ctx.count(of: "Item"), 300)
        // The rolled-back objects' rows are free again: new objects take them, as null as ever.
        let later = try ctx.importJSON(mapping: "item", "[" + (700..<1100).map { #"{"id": \#($0)}"# }.joined(separator: ",") + "]")
        XCTAssertEqual(try ctx.count(of: "Item"), 700)
        for object in [later[0], later[199], later[399]] {
            XCTAssertNil(try ctx.value(of: object, attribute: "note").0)
            XCTAssertNil(try ctx.value(of: object, attribute: "name").0)
        }
        for index in [0, 63, 64, 65, 72, 299] {
            XCTAssertEqual(try ctx.value(of: items[index], attribute: "name").0, .string("n\(index)"))
            XCTAssertNil(try ctx.value(of: items[index], attribute: "note").0)
        }
        XCTAssertEqual(try ctx.value(of: later[399], attribute: "id").0, .integer(1099))
    }

    func testADeletedObjectComesBackWithItsValuesWhileItsRowIsTaken() throws {
        let ctx = try TestFixtures.context(spec)
        let items = try ctx.importJSON(mapping: "item", #"[{"id": 1, "name": "first", "note": "a note that no other item has"}, {"id": 2, "name": "second"}]"#)
        try ctx.begin()
        try ctx.delete(items[0])
        // A new object takes the freed row; the rollback must put the first one back elsewhere.
        _ = try ctx.importJSON(mapping: "item", #"[{"id": 3, "name": "third", "note": "another"}]"#)
        _ = try ctx.importJSON(mapping: "item", #"[{"id": 2, "name": "renamed"}]"#)
        try ctx.rollback()
        XCTAssertEqual(try ctx.value(of: items[0], attribute: "name").0, .string("first"))
        XCTAssertEqual(try ctx.value(of: items[0], attribute: "note").0, .string("a note that no other item has"))
        XCTAssertEqual(try ctx.value(of: items[1], attribute: "name").0, .string("second"))
        XCTAssertNil(try ctx.object(of: "Item", identity: .integer(3)))
        XCTAssertEqual(try ctx.object(of: "Item", identity: .integer(1)), items[0])
        XCTAssertEqual(try ctx.count(of: "Item"), 2)
    }
}
