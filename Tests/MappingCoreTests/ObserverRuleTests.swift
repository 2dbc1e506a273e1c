@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import MappingLock
import XCTest
import _MappingTestSupport

/// The rules observers live by in the core, whose observers are called synchronously after the
/// lock is released: one removed by another during a delivery is not called, observers changing the
/// graph in turn stop at `observerChangeDepth` with `.misuse` (instead of recursing without end),
/// and many observers are added, called and removed in time proportional to their number.
final class ObserverRuleTests: XCTestCase {
    private func company(_ ctx: MappingContext) throws -> ObjectID {
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        return try XCTUnwrap(ctx.object(of: "Company", identity: .integer(10)))
    }

    func testAnObserverRemovedDuringADeliveryIsNotCalled() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let target = try company(ctx)
        let calls = Locked<[String]>([])
        let second = Locked<Int>(0)
        ctx.addObserver { _ in
            calls.withLock { $0.append("first") }
            ctx.removeObserver(second.withLock { $0 })
        }
        second.withLock { $0 = ctx.addObserver { _ in calls.withLock { $0.append("second") } } }
        try ctx.set(target, attribute: "name", to: .string("A"))
        XCTAssertEqual(calls.withLock { $0 }, ["first"])
        XCTAssertFalse(ctx.isObserving(second.withLock { $0 }))
    }

    func testObserversChangingTheGraphInTurnStopAtTheDepthLimit() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let target = try company(ctx)
        let calls = Locked<Int>(0)
        let refusals = Locked<[MappingError]>([])
        ctx.addObserver { _ in
            let call = calls.withLock { count -> Int in count += 1; return count }
            do throws(MappingError) {
                try ctx.set(target, attribute: "name", to: .string("v\(call)"))
            } catch {
                refusals.withLock { $0.append(error) }
            }
        }
        try ctx.set(target, attribute: "name", to: .string("start"))
        XCTAssertEqual(calls.withLock { $0 }, MappingContext.observerChangeDepth)
        XCTAssertEqual(refusals.withLock { $0.map(\.code) }, [.misuse])
        XCTAssertEqual(try ctx.value(of: target, attribute: "name").0, .string("v\(MappingContext.observerChangeDepth - 1)"))
        XCTAssertEqual(ctx.observerCall.depth, 0, "the depth is back to none once the delivery ends")
    }

    func testManyObserversAreAddedCalledAndRemoved() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let target = try company(ctx)
        let calls = Locked<Int>(0)
        let tokens = (0..<50_000).map { _ in ctx.addObserver { _ in calls.withLock { $0 += 1 } } }
        try ctx.set(target, attribute: "name", to: .string("A"))
        XCTAssertEqual(calls.withLock { $0 }, 50_000)
        for token in tokens.reversed() where token % 2 == 0 { XCTAssertTrue(ctx.removeObserver(token)) }
        try ctx.set(target, attribute: "name", to: .string("B"))
        XCTAssertEqual(calls.withLock { $0 }, 75_000)
        for token in tokens { ctx.removeObserver(token) }
        try ctx.set(target, attribute: "name", to: .string("C"))
        XCTAssertEqual(calls.withLock { $0 }, 75_000)
    }
}
