@testable import MappingCore
@testable import MappingEngine
import XCTest
import _MappingTestSupport

/// Observers and watches as `AsyncStream`s: every commit's change set in order, and the observer
/// removed when the consumer stops or the context is freed.
final class ChangeStreamTests: XCTestCase {
    func testAStreamYieldsEachCommitAndStopsObservingWhenTheLoopEnds() async throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        do {
            let changes = ctx.changes()
            XCTAssertFalse(ctx.observers.isEmpty)
            _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
            let ada = try XCTUnwrap(ctx.object(of: "Person", identity: 1))
            try ctx.set(ada, attribute: "name", to: "Augusta")
            // The loop ends after two: then nothing holds the stream's iterator.
            let received = await changes.prefix(2).reduce(into: [ChangeSet]()) { $0.append($1) }
            XCTAssertEqual(received.first?.inserted.map(\.entity).sorted(),
                           ["Company", "Company", "Person", "Person", "Phone", "Phone", "Phone"])
            XCTAssertEqual(received.last?.updated.map(\.object), [ada])
            XCTAssertEqual(received.last?.updated.map(\.changed), [["name"]])
        }
        XCTAssertTrue(ctx.observers.isEmpty, "the stream is gone, so is its observer")
        // The stream's end does not take the graph's lock (it may end inside a call holding it):
        // the next call stops collecting.
        _ = try ctx.count(of: "Person")
        XCTAssertFalse(ctx.snapshotCollectsChanges(), "and no change set is collected for nobody")
    }

    func testAWatchStreamYieldsResultPositions() async throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        do {
            let results = try ctx.changes(of: FetchRequest(entity: "Person", sort: "name"))
            _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
            let grace = try XCTUnwrap(ctx.object(of: "Person", identity: 2))
            try ctx.set(grace, attribute: "name", to: "Aaron")
            let received = await results.prefix(2).reduce(into: [FetchChange]()) { $0.append($1) }
            XCTAssertEqual(received.first?.inserted, [0, 1])
            XCTAssertEqual(received.last?.results.first, grace, "Aaron sorts before Ada Lovelace")
            XCTAssertEqual(received.last?.moved.map(\.from), [1])
        }
        XCTAssertTrue(ctx.observers.isEmpty)
        XCTAssertThrowsError(try ctx.changes(of: FetchRequest(entity: "Persn"))) { error in
            XCTAssertEqual((error as? MappingError)?.code, .name)
        }
    }

    func testAStreamEndsWhenItsContextIsFreed() async throws {
        var ctx: MappingContext? = try TestFixtures.context(TestFixtures.peopleSpec)
        let changes = try XCTUnwrap(ctx).changes()
        ctx = nil
        // Bounded: a stream that never ended would otherwise hang the suite.
        let ended = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in changes {}
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: 10_000_000_000)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        XCTAssertTrue(ended, "the consumer's loop ended once the context was freed")
    }
}

extension MappingContext {
    /// Whether the graph collects change sets now (it should only while someone observes).
    fileprivate func snapshotCollectsChanges() -> Bool {
        graph.withLockIgnoringTransactions { $0.session.collectsChanges }
    }
}
