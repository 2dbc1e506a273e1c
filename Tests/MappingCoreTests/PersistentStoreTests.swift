@testable import MappingCore
import MappingJSON
import MappingLock
import XCTest
import _MappingTestSupport

/// The core's side of a persistent store: what each commit hands it, and a failed write failing
/// the commit whole (the graph as it was), with a stand-in store.
final class PersistentStoreTests: XCTestCase {
    private final class Recording: PersistentStore, @unchecked Sendable {
        var commits: [StoreCommit] = []
        var failNext = false
        func write(_ commit: StoreCommit) throws(MappingError) {
            if failNext {
                failNext = false
                throw MappingError(.store, "the disk is full")
            }
            commits.append(commit)
        }
    }

    func testEachCommitHandsTheStoreItsRowsAndAFailedWriteFailsTheCommit() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let store = Recording()
        let loaded = try ctx.attach(store, loading: [
            StoredObject(key: 7, entity: try XCTUnwrap(ctx.model.entity(named: "Company")).index,
                         values: [.integer(10), .string("Loaded")], links: [[]]),
        ])
        let company = try XCTUnwrap(loaded[7])
        XCTAssertEqual(try ctx.value(of: company, attribute: "name").0, .string("Loaded"))
        XCTAssertEqual(try ctx.object(of: "Company", identity: .integer(10)), company, "loaded objects are in the identity map")
        XCTAssertTrue(store.commits.isEmpty, "loading is not a commit")

        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        XCTAssertEqual(store.commits.count, 1)
        XCTAssertEqual(store.commits.first?.inserted.count, 6, "2 people, 1 new company, 3 phones")
        XCTAssertEqual(store.commits.first?.updated.map(\.object), [company], "the loaded company got a name and employees")
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        XCTAssertEqual(store.commits.count, 1, "a commit that changes nothing writes nothing")

        let grace = try XCTUnwrap(ctx.object(of: "Person", identity: .integer(2)))
        store.failNext = true
        XCTAssertThrowsError(try ctx.set(grace, attribute: "name", to: .string("Lost"))) { error in
            XCTAssertEqual((error as? MappingError)?.code, .store)
        }
        XCTAssertEqual(try ctx.value(of: grace, attribute: "name").0, .string("Grace"), "the failed commit left the graph as it was")
        try ctx.delete(grace)
        XCTAssertEqual(store.commits.last?.deleted.map(\.object), [grace])
        XCTAssertThrowsError(try ctx.attach(store, loading: [])) { error in
            XCTAssertEqual((error as? MappingError)?.code, .misuse, "a store attaches only to an empty context")
        }
    }
}
