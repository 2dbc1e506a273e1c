@testable import MappingCore
import XCTest

/// A fetch's result is read a batch at a time from the object read on, and what is remembered of
/// results stays bounded however many are made.
final class FaultBatchesTests: XCTestCase {
    private func objects(_ range: Range<UInt64>) -> [ObjectID] { range.map { ObjectID(raw: $0) } }

    /// A result in no slot order (objects read before among new faults) is indexed as its faults
    /// are read.
    func testABatchIsTheFaultsThatFollowTheObjectReadInItsResult() {
        var batches = FaultBatches()
        let result = Array(objects(1..<251).reversed())
        batches.remember(result, faults: result.count)
        XCTAssertEqual(batches.batch(from: result[0]) { _ in true }, Array(result[0..<FaultBatches.size]))
        XCTAssertEqual(batches.batch(from: result[200]) { _ in true }, Array(result[200...]))
        // Objects read already are skipped, and an object no result names is read alone.
        XCTAssertEqual(batches.batch(from: result[10]) { $0.raw % 2 == 1 || $0 == result[10] }.count, FaultBatches.size)
        XCTAssertEqual(batches.batch(from: ObjectID(raw: 999)) { _ in true }, [ObjectID(raw: 999)])
        batches.read(Array(result[0..<5]))
        XCTAssertEqual(batches.batch(from: result[4]) { _ in true }, [result[4]], "a read object leaves its result")
        batches.read(result)
        XCTAssertEqual(batches.batch(from: result[100]) { _ in true }, [result[100]])
    }

    func testWhatIsRememberedStaysBounded() {
        var batches = FaultBatches()
        let half = UInt64(FaultBatches.limit / 2 + 1)
        let first = objects(1..<half + 1)
        batches.remember(first, faults: first.count)
        // All but two of the first result read: its array is still counted until it is forgotten.
        batches.read(Array(first.dropLast(2)))
        XCTAssertEqual(batches.batch(from: first[first.count - 2]) { _ in true }.count, 2)
        let second = objects(half + 1..<2 * half + 1)
        batches.remember(second, faults: second.count)
        XCTAssertEqual(batches.batch(from: first[first.count - 2]) { _ in true }, [first[first.count - 2]],
                       "the oldest result was forgotten to make room")
        XCTAssertEqual(batches.batch(from: second[0]) { _ in true }.count, FaultBatches.size)
        // A result too large to remember is not, and forgets nothing.
        let large = objects(10_000_000..<10_000_000 + UInt64(FaultBatches.limit))
        batches.remember(large, faults: large.count)
        XCTAssertEqual(batches.batch(from: second[0]) { _ in true }.count, FaultBatches.size)
    }

    /// A slot outlives its objects: an entry indexed for a handle of an earlier generation of the
    /// slot never batches a later one (it would read the old result's faults and not the object).
    func testAnEntryOfAnEarlierGenerationOfASlotIsNotTheObjectsPlace() {
        var batches = FaultBatches()
        let old = ObjectID(tag: 1, generation: 1, slot: 0)
        let result = [old] + (1..<150).map { ObjectID(tag: 1, generation: 1, slot: UInt32($0)) }
        batches.remember(result, faults: result.count)
        XCTAssertEqual(batches.batch(from: result[1]) { _ in true }.first, result[1])
        let reused = ObjectID(tag: 1, generation: 2, slot: 0)
        XCTAssertEqual(batches.batch(from: reused) { $0 != old }, [reused], "the slot's entry is the old handle's")
    }

    /// A large result whose slots increase (faults made in its order) is searched, not indexed,
    /// and forgotten once every fault of it is read; a result with fewer than two faults is not kept.
    func testAResultInSlotOrderIsSearchedAndForgottenOnceRead() {
        var batches = FaultBatches()
        let count = FaultBatches.searchedFrom + 50
        let result = objects(1..<UInt64(count) + 1)
        batches.remember(result, faults: count - 1)  // the last one read already
        XCTAssertEqual(batches.batch(from: result[120]) { _ in true }, Array(result[120..<220]))
        XCTAssertEqual(batches.batch(from: result[count - 1]) { _ in true }, [result[count - 1]])
        batches.read(Array(result[0..<count - 40]))
        XCTAssertEqual(batches.batch(from: result[count - 40]) { _ in true }, Array(result[(count - 40)...]), "still kept: faults are left")
        batches.read(Array(result[(count - 40)..<(count - 1)]))
        XCTAssertEqual(batches.batch(from: result[count - 1]) { _ in true }, [result[count - 1]], "every fault read: forgotten")
        let few = objects(300..<400)
        batches.remember(few, faults: 1)
        XCTAssertEqual(batches.batch(from: few[0]) { _ in true }, [few[0]])
    }
}
