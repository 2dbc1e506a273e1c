@testable import MappingCore
import MappingEngine
import XCTest
import _MappingTestSupport

/// The queries that read the rows of a run's scans: the scans of one entity and attributes in
/// one query, the widest attribute's values split across queries, null tested once.
final class RowScanTests: XCTestCase {
    private func scan(_ values: [[AttributeValue?]]) -> RowScan {
        RowScan(entity: 0, kinds: [0], tests: values.enumerated().map { RowScan.Test(attribute: $0.offset + 1, values: $0.element) })
    }

    /// The values each query's test of `attribute` holds (`in`), and whether it also tests null.
    private func tested(_ filter: RowFilter, attribute: Int) -> (values: [AttributeValue], null: Bool)? {
        guard case .and(let parts) = filter else { return nil }
        for part in parts {
            let alternatives: [RowFilter]
            if case .or(let either) = part { alternatives = either } else { alternatives = [part] }
            var values: [AttributeValue] = []
            var null = false
            var mine = false
            for test in alternatives {
                guard case .compare(let tested, let op, let held) = test, tested == attribute else { continue }
                mine = true
                if op == .equal && held.isEmpty { null = true } else { values += held }
            }
            if mine { return (values, null) }
        }
        return nil
    }

    func testScansOfOneGroupAreReadTogetherAndTheWidestAttributeIsSplit() throws {
        let many = (0..<1_200).map { AttributeValue?.some(.integer(Int64($0))) }
        let scans = [scan([Array(many[..<700]), [.string("a")]]), scan([Array(many[500...]) + [nil], [.string("b"), .string("a")]])]
        let filters = scans[0].group.filters(scans)
        XCTAssertEqual(filters.count, 3)  // 1,200 values, 500 a query
        var seen: [AttributeValue] = []
        for (index, filter) in filters.enumerated() {
            let first = try XCTUnwrap(tested(filter, attribute: 1))
            let second = try XCTUnwrap(tested(filter, attribute: 2))
            seen += first.values
            XCTAssertEqual(first.null, index == 0, "null is tested by one query")
            XCTAssertEqual(second.values, [.string("a"), .string("b")])
            XCTAssertFalse(second.null)
        }
        XCTAssertEqual(seen, many.compactMap { $0 }, "each value once, in the order first asked")
    }

    func testATestWithoutValuesKeepsNoRow() {
        let filters = scan([[]]).group.filters([scan([[]])])
        XCTAssertEqual(filters.count, 1)
        guard case .and(let parts)? = filters.first, case .constant(false)? = parts.first else {
            return XCTFail("an empty IN list keeps nothing: \(filters)")
        }
    }

    func testValuesTheDatabaseComparesAsMemoryDoesRunThere() throws {
        let model = try TestFixtures.context(#"{"entities": {"E": {"attributes": {"id": "integer", "text": "string", "price": "decimal"}}}, "mappings": {"e": {"entity": "E", "attributes": {"id": "id"}}}}"#).model
        func runs(_ attribute: Int, _ value: AttributeValue, bytewise: Bool) -> Bool {
            RowScan(entity: 0, kinds: [0], tests: [.init(attribute: attribute, values: [value])]).runsInDatabase(bytewise: bytewise, model: model)
        }
        XCTAssertTrue(runs(0, .integer(1), bytewise: false))
        XCTAssertTrue(runs(1, .string("cat"), bytewise: false))
        // Memory finds "Kat" in "\u{212A}at" by canonical equivalence; bytes do not.
        XCTAssertFalse(runs(1, .string("Kat"), bytewise: false))
        XCTAssertTrue(runs(1, .string("Kat"), bytewise: true))
        XCTAssertFalse(runs(2, .decimal(try XCTUnwrap(ExactDecimal(parsing: "1.50"))), bytewise: true))
    }
}
