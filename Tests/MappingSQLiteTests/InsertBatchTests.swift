import XCTest
@testable import MappingSQLite

/// How many new rows one INSERT takes: 64, 8 or 1, never more parameters than the SQLite at hand
/// allows (999 before 3.32), and every row written exactly once.
final class InsertBatchTests: XCTestCase {
    func testBatchesAre64Then8Then1() {
        XCTAssertEqual(SQLiteStore.insertBatch(rows: 130, perRow: 12, limit: 32_766).rows, 64)
        XCTAssertEqual(SQLiteStore.insertBatch(rows: 63, perRow: 12, limit: 32_766).rows, 8)
        XCTAssertEqual(SQLiteStore.insertBatch(rows: 7, perRow: 12, limit: 32_766).rows, 1)
        XCTAssertEqual(SQLiteStore.insertBatch(rows: 0, perRow: 12, limit: 32_766).rows, 1)
    }

    func testABatchStaysWithinTheParameterLimit() {
        // 64 rows of 20 parameters are 1,280: more than an SQLite before 3.32 takes.
        XCTAssertEqual(SQLiteStore.insertBatch(rows: 100, perRow: 20, limit: 999).rows, 8)
        XCTAssertEqual(SQLiteStore.insertBatch(rows: 100, perRow: 200, limit: 999).rows, 1)
        for perRow in [1, 7, 15, 16, 125, 126, 2_000] {
            for limit in [999, 32_766] {
                let batch = SQLiteStore.insertBatch(rows: 1_000, perRow: perRow, limit: limit)
                XCTAssertTrue(batch.rows == 1 || batch.rows * perRow <= limit, "\(perRow) per row, limit \(limit)")
            }
        }
    }

    func testEveryRowIsInExactlyOneBatch() {
        for count in [1, 7, 8, 9, 63, 64, 65, 71, 72, 130, 1_000] {
            var written = 0
            var statements = 0
            while written < count {
                let batch = SQLiteStore.insertBatch(rows: count - written, perRow: 12, limit: 32_766)
                XCTAssertTrue(batch.rows >= 1 && batch.rows <= count - written)
                XCTAssertEqual([64, 8, 1][batch.slot], batch.rows)
                written += batch.rows
                statements += 1
            }
            XCTAssertEqual(written, count)
            XCTAssertLessThanOrEqual(statements, count / 64 + 14)
        }
    }
}
