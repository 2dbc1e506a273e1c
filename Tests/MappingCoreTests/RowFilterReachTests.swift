@testable import MappingCore
import XCTest

/// `RowFilter.reaching`: the rows whose test reads, as the database holds them, one of the rows
/// an open transaction changed — through to-ones and to-manys, at any depth, and never for a test
/// of a row's own columns (the transaction's own rows are tested in memory anyway).
final class RowFilterReachTests: XCTestCase {
    private let keys: [Int64] = [7, 9]

    /// A readable form: `in` for the changed rows, `-` for nothing.
    private func text(_ filter: RowFilter) -> String {
        switch filter {
        case .constant(let value): value ? "+" : "-"
        case .compare, .prefix, .suffix, .containing: "own"
        case .rowIn(let keys): "in\(keys)"
        case .and(let parts): "and(" + parts.map(text).joined(separator: ",") + ")"
        case .or(let parts): "or(" + parts.map(text).joined(separator: ",") + ")"
        case .not(let inner): "not(" + text(inner) + ")"
        case .through(let relationship, let inner, let whenNone): "through\(relationship)\(whenNone ? "?" : "")(" + text(inner) + ")"
        case .count(let relationship, _, _): "count\(relationship)"
        case .any(let relationship, let inner): "any\(relationship)(" + text(inner) + ")"
        }
    }

    private let own = RowFilter.compare(attribute: 1, op: .equal, values: [.string("x")])

    func testOwnColumnsReachNothing() {
        XCTAssertEqual(text(own.reaching(keys)), "-")
        XCTAssertEqual(text(RowFilter.not(.and([own, .prefix(attribute: 2, "a")])).reaching(keys)), "or(-,-)")
        XCTAssertEqual(text(RowFilter.rowIn(keys: [1]).reaching(keys)), "-")
    }

    func testAToOneReachesItsTargetAndWhatTheTargetReads() {
        // company.name == x: the rows whose company is a changed row.
        XCTAssertEqual(text(RowFilter.through(relationship: 0, own, whenNone: true).reaching(keys)), "through0(or(in[7, 9],-))")
        // friend.company.name == x: also the rows whose friend's company is one, whatever NOT says.
        let twoHops = RowFilter.not(.through(relationship: 2, .through(relationship: 0, own, whenNone: false), whenNone: true))
        XCTAssertEqual(text(twoHops.reaching(keys)), "through2(or(in[7, 9],through0(or(in[7, 9],-))))")
    }

    func testAToManyReachesTheOwnersOfChangedTargets() {
        XCTAssertEqual(text(RowFilter.any(relationship: 1, own).reaching(keys)), "any1(or(in[7, 9],-))")
        // @count: a changed target may have left or joined.
        XCTAssertEqual(text(RowFilter.count(relationship: 1, op: .greater, values: [.integer(2)]).reaching(keys)), "any1(in[7, 9])")
        XCTAssertEqual(text(RowFilter.or([own, .any(relationship: 1, .through(relationship: 0, own, whenNone: false))]).reaching(keys)),
                       "or(-,any1(or(in[7, 9],through0(or(in[7, 9],-)))))")
    }

    func testNoChangedRowsReachNothing() {
        XCTAssertEqual(text(RowFilter.through(relationship: 0, own, whenNone: false).reaching([])), "-")
    }
}
