import XCTest
@testable import MappingCore

final class ExactDecimalTests: XCTestCase {
    func testCanonicalFormAndEquality() throws {
        let a = try XCTUnwrap(ExactDecimal(parsing: "131.30"))
        let b = try XCTUnwrap(ExactDecimal(parsing: "1313e-1"))
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertEqual(a.description, "131.3")
        XCTAssertEqual(ExactDecimal(parsing: "-0.00100")?.description, "-0.001")
        XCTAssertEqual(ExactDecimal(parsing: "1.2e3")?.description, "1200")
        XCTAssertEqual(ExactDecimal(parsing: "-0")?.description, "0")
        XCTAssertEqual(ExactDecimal(parsing: "123456789012345678901234567890.5")?.description,
                       "123456789012345678901234567890.5")
        XCTAssertEqual(ExactDecimal(0.1)?.description, "0.1")
        for bad in ["", "-", "1.2.3", "e5", "1e", "abc", "1e99999", " 1"] {
            XCTAssertNil(ExactDecimal(parsing: bad), bad)
        }
    }

    func testIntegerConversion() {
        XCTAssertEqual(ExactDecimal(parsing: "9223372036854775807")?.int64Value, Int64.max)
        XCTAssertEqual(ExactDecimal(parsing: "-9223372036854775808")?.int64Value, Int64.min)
        XCTAssertNil(ExactDecimal(parsing: "9223372036854775808")?.int64Value)
        XCTAssertEqual(ExactDecimal(parsing: "12e2")?.int64Value, 1200)
        XCTAssertNil(ExactDecimal(parsing: "1.5")?.int64Value)
    }
}
