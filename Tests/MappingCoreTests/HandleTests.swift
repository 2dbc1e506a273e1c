import XCTest
@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Stale stays stale: a handle of a deleted object, or of a freed context, never names a later
/// object, however many objects or contexts come after it.
final class HandleTests: XCTestCase {
    private let spec = #"{"entities": {"Item": {"attributes": {"id": "integer"}}}, "mappings": {"item": {"entity": "Item", "attributes": {"id": "id"}}}}"#

    func testAHandleStaysStaleAfterItsSlotIsReused65535Times() throws {
        let ctx = try TestFixtures.context(spec)
        let first = try ctx.create("Item")
        try ctx.delete(first)
        var last = first
        for _ in 0..<70_000 {
            last = try ctx.create("Item")
            XCTAssertNotEqual(last, first)
            try ctx.delete(last)
        }
        let fresh = try ctx.create("Item")
        XCTAssertFalse(try ctx.isLive(first), "the first object's handle must not name a later object")
        XCTAssertFalse(try ctx.isLive(last))
        XCTAssertTrue(try ctx.isLive(fresh))
        XCTAssertEqual(try ctx.count(of: "Item"), 1)
        XCTAssertThrowsError(try ctx.value(of: first, attribute: "id")) { error in
            XCTAssertEqual((error as? MappingError)?.code, .stale)
        }
    }

    func testARolledBackDeletionKeepsItsHandleAtTheLastGeneration() throws {
        let ctx = try TestFixtures.context(spec)
        var item = try ctx.create("Item")
        for _ in 0..<65_534 { try ctx.delete(item); item = try ctx.create("Item") }
        XCTAssertEqual(item.generation, UInt16.max, "the slot is at its last generation")
        try ctx.begin()
        try ctx.delete(item)
        try ctx.rollback()
        XCTAssertTrue(try ctx.isLive(item), "a rolled-back deletion brings the object back under its handle")
        try ctx.delete(item)
        let next = try ctx.create("Item")
        XCTAssertNotEqual(next.slot, item.slot, "the slot's generations are used up: it is retired")
        XCTAssertFalse(try ctx.isLive(item))
    }

    func testAFreedContextsHandlesNeverNameALaterContextsObjects() throws {
        let compiled = try CompiledSpec.load(json: spec)
        var first: ObjectID?
        do {
            let ctx = try TestFixtures.context(compiled: compiled)
            first = try ctx.create("Item")
        }
        let old = try XCTUnwrap(first)
        var accepted = 0
        for _ in 0..<70_000 {
            let ctx = try TestFixtures.context(compiled: compiled)
            _ = try ctx.create("Item")
            if try ctx.isLive(old) { accepted += 1 }
        }
        XCTAssertEqual(accepted, 0)
    }

    func testContextsAliveAtOnceShareNoTag() throws {
        let compiled = try CompiledSpec.load(json: spec)
        let contexts = try (0..<300).map { _ in try TestFixtures.context(compiled: compiled) }
        let objects = try contexts.map { try $0.create("Item") }
        for (index, ctx) in contexts.enumerated() {
            XCTAssertTrue(try ctx.isLive(objects[index]))
            XCTAssertFalse(try ctx.isLive(objects[(index + 1) % objects.count]))
        }
    }
}
