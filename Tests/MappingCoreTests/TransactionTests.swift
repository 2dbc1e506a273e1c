import XCTest
@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// All or nothing: a failed import leaves every object, value, relationship and identity as before.
final class TransactionTests: XCTestCase {
    func testFailedImportRestoresEverything() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let people = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        let snapshot = { () throws -> String in
            try ctx.serialize(mapping: "person", objects: ctx.objects(of: "Person"), asList: true, options: .includeNulls)
                + ctx.serialize(mapping: "company", objects: ctx.objects(of: "Company"), asList: true, options: .includeNulls)
        }
        let before = try snapshot()
        for bad in [
            #"{"data": {"people": [{"id": 1, "name": "x", "phones": [], "company": {"id": 5}}, {"id": 9, "company": {"id": 10}}, {"id": 2, "born": "yesterday"}]}}"#,
            #"{"data": {"people": [{"id": 2, "company": {"id": 10, "name": []}}]}}"#,
            #"{"data": {"people": [{"id": 77}, {"id": 78, "company": 3}]}}"#,
        ] {
            XCTAssertThrowsError(try ctx.importJSON(mapping: "person", bad))
            XCTAssertEqual(try snapshot(), before)
            XCTAssertEqual(try ctx.count(of: "Person"), 2)
            XCTAssertEqual(try ctx.count(of: "Company"), 2)
            XCTAssertEqual(try ctx.count(of: "Phone"), 3)
            XCTAssertNil(try ctx.object(of: "Person", identity: .integer(9)))
            XCTAssertNil(try ctx.object(of: "Company", identity: .integer(5)))
        }
        // Handles from before the failures still work; new imports still unique against old objects.
        XCTAssertEqual(try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 1}]}}"#), [people[0]])
        let fresh = try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 9}]}}"#)
        XCTAssertEqual(try ctx.count(of: "Person"), 3)
        XCTAssertTrue(try ctx.isLive(fresh[0]))
    }

    /// New objects under free keys leave no journal entry; a rollback must still restore every
    /// identity: a key freed and taken again in the transaction, and objects in reused slots.
    func testRollbackRestoresIdentitiesOfRecreatedAndReusedSlots() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let ada = try XCTUnwrap(ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 1}, {"id": 2}]}}"#).first)
        try ctx.begin()
        try ctx.delete(ada)
        let again = try XCTUnwrap(ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 1, "name": "new"}]}}"#).first)
        XCTAssertNotEqual(again, ada)
        try ctx.rollback()
        XCTAssertEqual(try ctx.object(of: "Person", identity: .integer(1)), ada)
        XCTAssertTrue(try ctx.isLive(ada))
        XCTAssertFalse(try ctx.isLive(again))
        XCTAssertEqual(ctx.identityEntryCount(of: "Person"), 2)

        // A deletion committed frees its slot; a failed import that reuses it leaves no identity behind.
        let grace = try XCTUnwrap(ctx.object(of: "Person", identity: .integer(2)))
        try ctx.delete(grace)
        XCTAssertThrowsError(try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 7}, {"id": 8}, {"id": "x"}]}}"#))
        XCTAssertNil(try ctx.object(of: "Person", identity: .integer(7)))
        XCTAssertNil(try ctx.object(of: "Person", identity: .integer(8)))
        XCTAssertNil(try ctx.object(of: "Person", identity: .integer(2)))
        XCTAssertEqual(try ctx.count(of: "Person"), 1)
        XCTAssertEqual(ctx.identityEntryCount(of: "Person"), 1, "no entry left for the rolled-back 7 and 8")
        let seven = try XCTUnwrap(ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 7}]}}"#).first)
        XCTAssertEqual(try ctx.object(of: "Person", identity: .integer(7)), seven)
    }

    func testHandlesOfRolledBackObjectsAreStale() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let first = try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 1}]}}"#)
        XCTAssertThrowsError(try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 2}, {"id": "x"}]}}"#))
        let again = try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 3}]}}"#)
        XCTAssertNotEqual(again[0], first[0])
        XCTAssertThrowsError(try ctx.value(of: ObjectID(raw: again[0].raw &+ (1 << 32)), attribute: "id")) { error in
            XCTAssertEqual((error as? MappingError)?.code, .stale)
        }
    }

    func testHandlesFromAnotherContextAreStale() throws {
        let a = try TestFixtures.context(TestFixtures.peopleSpec)
        let b = try TestFixtures.context(TestFixtures.peopleSpec)
        let fromB = try b.importJSON(mapping: "person", #"{"data": {"people": [{"id": 1}]}}"#)
        _ = try a.importJSON(mapping: "person", #"{"data": {"people": [{"id": 1}]}}"#)
        XCTAssertFalse(try a.isLive(fromB[0]))
        XCTAssertThrowsError(try a.value(of: fromB[0], attribute: "id"))
    }
}
