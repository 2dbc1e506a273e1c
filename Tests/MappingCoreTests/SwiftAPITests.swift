@testable import MappingCore
@testable import MappingEngine
import MappingLock
import XCTest
import _MappingTestSupport

/// The Swift-facing conveniences docs/swift.md teaches: JSON values as literals, typed reads of
/// attribute values, `transaction { }`.
final class SwiftAPITests: XCTestCase {
    private func imported() throws -> (MappingContext, ObjectID) {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        return (ctx, try XCTUnwrap(ctx.object(of: "Person", identity: 1)))
    }

    func testLiteralsAreTheJSONValuesTheySpell() {
        let value: JSONValue = ["id": 1, "name": "Ada", "tags": [true, .null, 2.5], "address": [:]]
        XCTAssertEqual(value, .object([JSONMember("id", .integer(1)), JSONMember("name", .string("Ada")),
                                       JSONMember("tags", .array([.bool(true), .null, .real(2.5)])),
                                       JSONMember("address", .object([]))]),
                       "members stay in the order written")
        let empty: JSONValue = []
        XCTAssertEqual(empty, .array([]))
    }

    func testLiteralsWorkAsIdentitiesArgumentsAndValues() throws {
        let (ctx, ada) = try imported()
        XCTAssertEqual(try ctx.object(of: "Phone", identity: "+44-2").map { try ctx.value("kind", of: $0) }, .string("work"))
        XCTAssertNil(try ctx.object(of: "Person", identity: 3))
        let older = try ctx.fetch(FetchRequest(entity: "Person", predicate: "age > %@", arguments: [40]))
        XCTAssertEqual(try older.map { try ctx.value("name", of: $0)?.stringValue }, ["Grace"])
        try ctx.set(ada, attribute: "city", to: "Paris")
        XCTAssertEqual(try ctx.value("city", of: ada)?.stringValue, "Paris")
        try ctx.set(ada, attribute: "city", to: .null)
        XCTAssertNil(try ctx.value("city", of: ada), "JSON null clears the value")
    }

    func testTypedReadsGiveTheValueOnlyForItsOwnType() throws {
        let (ctx, ada) = try imported()
        let name = try ctx.value("name", of: ada)
        XCTAssertEqual(name?.stringValue, "Ada Lovelace", "the second representation of id 1 updated it")
        XCTAssertNil(name?.integerValue)
        XCTAssertEqual(try ctx.value("age", of: ada)?.integerValue, 36, "coerced from \"36\" by the spec's type")
        XCTAssertNil(try ctx.value("age", of: ada)?.stringValue)
        XCTAssertEqual(try ctx.value("score", of: ada)?.doubleValue, 9.5)
        XCTAssertEqual(try ctx.value("weight", of: ada)?.decimalValue?.description, "61.25")
        XCTAssertEqual(try ctx.value("active", of: ada)?.boolValue, true)
        XCTAssertEqual(try ctx.value("born", of: ada)?.dateValue?.iso8601, "1815-12-10T00:00:00.000Z")
        XCTAssertEqual(try ctx.value("tags", of: ada)?.jsonValue, ["math", ["engines": 2]])
        XCTAssertThrowsError(try ctx.value("nickname", of: ada)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .name)
        }
    }

    func testATransactionIsOneChangeSetAndItsValueIsReturned() throws {
        let (ctx, ada) = try imported()
        let seen = Locked<[ChangeSet]>([])
        ctx.addObserver { change in seen.withLock { $0.append(change) } }
        let renamed = try ctx.transaction { () throws -> String in
            try ctx.set(ada, attribute: "name", to: "Augusta")
            try ctx.set(ada, attribute: "age", to: 37)
            return "renamed"
        }
        XCTAssertEqual(renamed, "renamed")
        XCTAssertFalse(ctx.hasTransactionOnCallingThread)
        let sets = seen.withLock { $0 }
        XCTAssertEqual(sets.count, 1, "both changes in one commit")
        XCTAssertEqual(sets.first?.updated.map(\.changed), [["name", "age"]])
    }

    func testATransactionThatThrowsKeepsNothing() throws {
        let (ctx, ada) = try imported()
        struct ChangedMyMind: Error {}
        XCTAssertThrowsError(try ctx.transaction {
            try ctx.set(ada, attribute: "name", to: "Augusta")
            throw ChangedMyMind()
        }) { error in XCTAssertTrue(error is ChangedMyMind, "the body's own error comes out: \(error)") }
        XCTAssertEqual(try ctx.value("name", of: ada)?.stringValue, "Ada Lovelace")
        XCTAssertFalse(ctx.hasTransactionOnCallingThread, "the transaction was ended, not left open")

        // A change that fails inside rolls the transaction back; the wrapper ends it without failing again.
        XCTAssertThrowsError(try ctx.transaction {
            try ctx.set(ada, attribute: "name", to: "Augusta")
            try ctx.set(ada, attribute: "nickname", to: "Ada")
        }) { error in XCTAssertEqual((error as? MappingError)?.code, .name) }
        XCTAssertEqual(try ctx.value("name", of: ada)?.stringValue, "Ada Lovelace")
        try ctx.transaction { try ctx.set(ada, attribute: "name", to: "Augusta") }
        XCTAssertEqual(try ctx.value("name", of: ada)?.stringValue, "Augusta", "a new transaction opens afterwards")
    }

    func testAFailureTheBodyCatchesStillKeepsNothing() throws {
        let (ctx, ada) = try imported()
        XCTAssertThrowsError(try ctx.transaction {
            try ctx.set(ada, attribute: "name", to: "Augusta")
            XCTAssertThrowsError(try ctx.set(ada, attribute: "nickname", to: "Ada"))  // caught: the body goes on
            XCTAssertThrowsError(try ctx.set(ada, attribute: "name", to: "Countess")) { error in
                XCTAssertEqual((error as? MappingError)?.code, .misuse)
                XCTAssertTrue((error as? MappingError)?.message.contains("takes no more changes") == true, "\(error)")
            }
        }) { error in
            XCTAssertEqual((error as? MappingError)?.code, .name, "the end says why nothing was kept")
            XCTAssertTrue((error as? MappingError)?.message.hasPrefix("nothing was committed") == true, "\(error)")
        }
        XCTAssertEqual(try ctx.value("name", of: ada)?.stringValue, "Ada Lovelace", "neither change was kept")
        XCTAssertFalse(ctx.hasTransactionOnCallingThread)
    }

    func testAStreamEndedInsideAnImportCallbackDoesNotDeadlock() async throws {
        let (ctx, ada) = try imported()
        let task = Task { for await _ in ctx.changes() {} }
        try await Task.sleep(nanoseconds: 20_000_000)  // the stream's observer is registered by now
        var options = ImportOptions()
        options.onProgress = { _, _ in task.cancel() }  // ends the stream while the import holds the lock
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload, options: options)
        _ = await task.value
        try ctx.set(ada, attribute: "name", to: "Augusta")  // the next call sees no observer left
        XCTAssertEqual(try ctx.value("name", of: ada)?.stringValue, "Augusta")
    }
}
