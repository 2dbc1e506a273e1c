@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import MappingLock
import XCTest
import _MappingTestSupport

/// Watched fetches: after each commit, the new results with exact removed, inserted, moved and
/// updated positions; nothing when a commit leaves the results and their objects alone.
final class FetchWatchTests: XCTestCase {
    private func ids(_ values: [UInt64]) -> [ObjectID] { values.map { ObjectID(raw: $0) } }

    func testTheDifferenceHasTheFewestMoves() {
        let (a, b, c, d, e) = (ObjectID(raw: 1), ObjectID(raw: 2), ObjectID(raw: 3), ObjectID(raw: 4), ObjectID(raw: 5))
        let change = FetchChange(old: [a, b, c, d], new: [d, a, e, c], changedObjects: [a, e])
        XCTAssertEqual(change.removed, [1], "b left")
        XCTAssertEqual(change.inserted, [2], "e arrived")
        XCTAssertEqual(change.moved.map(\.from), [3], "only d moved: a and c kept their order")
        XCTAssertEqual(change.moved.map(\.to), [0])
        XCTAssertEqual(change.updated, [1], "a stayed and was updated; e is an insert, not an update")
        XCTAssertTrue(FetchChange(old: [a, b], new: [a, b], changedObjects: [c]).isEmpty)
    }

    func testAWatchReportsPositionsAfterEachCommitThatTouchesIt() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let reports = Locked<[FetchChange]>([])
        let token = try ctx.watch(FetchRequest(entity: "Person", sort: "name")) { change in
            reports.withLock { $0.append(change) }
        }
        func take() -> [FetchChange] { reports.withLock { taken in defer { taken = [] }; return taken } }

        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        let first = take()
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(first.first?.inserted, [0, 1])
        let ada = try XCTUnwrap(ctx.object(of: "Person", identity: .integer(1)))
        let grace = try XCTUnwrap(ctx.object(of: "Person", identity: .integer(2)))
        XCTAssertEqual(first.first?.results, [ada, grace], "sorted by name: Ada Lovelace, Grace")

        try ctx.set(grace, attribute: "name", to: .string("Aaron"))
        let renamed = try XCTUnwrap(take().first)
        XCTAssertEqual(renamed.results, [grace, ada])
        XCTAssertEqual(renamed.moved.map(\.from), [1])
        XCTAssertEqual(renamed.moved.map(\.to), [0])
        XCTAssertEqual(renamed.updated, [0])

        let company = try XCTUnwrap(ctx.object(of: "Company", identity: .integer(10)))
        try ctx.set(company, attribute: "name", to: .string("Other"))
        XCTAssertEqual(take(), [], "a commit that leaves the results and their objects alone reports nothing")

        try ctx.delete(ada)
        XCTAssertEqual(take().map(\.removed), [[1]])
        XCTAssertTrue(ctx.removeObserver(token))
    }

    func testAPredicateWatchSeesObjectsEnterAndLeave() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        let reports = Locked<[FetchChange]>([])
        _ = try ctx.watch(FetchRequest(entity: "Person", predicate: "age > %@", arguments: [.integer(50)])) { change in
            reports.withLock { $0.append(change) }
        }
        let ada = try XCTUnwrap(ctx.object(of: "Person", identity: .integer(1)))
        try ctx.set(ada, attribute: "age", to: .integer(60))
        try ctx.set(ada, attribute: "age", to: .integer(20))
        let seen = reports.withLock { $0 }
        XCTAssertEqual(seen.map(\.inserted), [[0], []], "creation order: Ada before Grace")
        XCTAssertEqual(seen.map(\.removed), [[], [0]])
        XCTAssertThrowsError(try ctx.watch(FetchRequest(entity: "Nobody")) { _ in }) { error in
            XCTAssertEqual((error as? MappingError)?.code, .name)
        }
    }
}
