import XCTest
@testable import MappingCore

/// RestKit's coercion table and our stricter departures.
final class CoercionTests: XCTestCase {
    private func coerce(_ value: JSONValue, _ type: AttributeType) throws -> AttributeValue? {
        switch try Coercion.coerce(value, reader: JSONValueReader(), to: type, depthLimit: 8) {
        case .value(let result): return result
        case .null, .skip: return nil
        }
    }

    private func date(_ text: String) throws -> Double? {
        guard case .date(let instant)? = try coerce(.string(text), .date) else { return nil }
        return instant.secondsSince1970
    }

    func testBooleanWordsI3() throws {
        for (text, expected) in [("true", true), ("T", true), ("f", false), ("yes", true), ("NO", false),
                                 ("y", true), ("n", false), ("False", false)] {
            XCTAssertEqual(try coerce(.string(text), .boolean), .boolean(expected), text)
        }
        XCTAssertEqual(try coerce(.integer(0), .boolean), .boolean(false))
        XCTAssertEqual(try coerce(.string("1"), .boolean), .boolean(true))
        // KVCMapping's "abcd" => NO would hide a bad payload: an error here (I21 departure).
        XCTAssertThrowsError(try coerce(.string("abcd"), .boolean))
    }

    func testNumericStringsI4I5I7I19() throws {
        XCTAssertEqual(try coerce(.string("187"), .integer), .integer(187))
        XCTAssertEqual(try coerce(.string("1234"), .integer), .integer(1234))
        XCTAssertEqual(try coerce(.string("true"), .integer), .integer(1))
        XCTAssertEqual(try coerce(.string("131.3"), .decimal), .decimal(ExactDecimal(parsing: "131.3")!))
        XCTAssertEqual(try coerce(.string("187"), .decimal), .decimal(ExactDecimal(187)))
        XCTAssertEqual(try coerce(.string("12.3456789"), .decimal)?.jsonValue.text(), "12.3456789")
        XCTAssertEqual(try coerce(.string("12.34"), .double), .double(12.34))
        XCTAssertEqual(try coerce(.string("-1e3"), .integer), .integer(-1000))
        XCTAssertEqual(try coerce(.real(3.0), .integer), .integer(3))
        XCTAssertEqual(try coerce(.integer(Int64.max), .integer), .integer(Int64.max))
        // Garbage is an error, never a silent 0 (I19 departure), and names the value.
        XCTAssertThrowsError(try coerce(.string("toto"), .integer)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .type)
            XCTAssertEqual((error as? MappingError)?.message, "\"toto\" is not an integer")
        }
        XCTAssertThrowsError(try coerce(.string("1.5"), .integer))
        XCTAssertThrowsError(try coerce(.string("0x10"), .double))
        XCTAssertThrowsError(try coerce(.string("nan"), .double))
        XCTAssertThrowsError(try coerce(.string("99999999999999999999"), .integer)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .range)
        }
        XCTAssertThrowsError(try coerce(.object([]), .integer))
    }

    func testNumbersToStringsI6I20() throws {
        XCTAssertEqual(try coerce(.integer(1234), .string), .string("1234"))
        XCTAssertEqual(try coerce(.real(12.34), .string), .string("12.34"))
        XCTAssertEqual(try coerce(.real(3), .string), .string("3"))
        XCTAssertEqual(try coerce(.bool(true), .string), .string("true"))
        XCTAssertEqual(try coerce(.string(""), .string), .string(""))
    }

    func testEmptyStringIsNotSetI10() throws {
        XCTAssertNil(try coerce(.string(""), .date))
        XCTAssertNil(try coerce(.string(""), .integer))
    }

    func testISO8601BatteryI17() throws {
        for text in ["2009-05-11T14:39:22Z", "2009-05-11T14:39:22", "2009-05-11T14:39:22-00:00",
                     "2009-05-11T14:39:22-0000", "2009-05-11 14:39:22", "2009-05-11T10:39:22-04:00"] {
            XCTAssertEqual(try date(text), 1_242_052_762, text)
        }
        for text in ["2009-05-11T14:39:22.777Z", "2009-05-11T14:39:22.777", "2009-05-11T14:39:22.777-00:00",
                     "2009-05-11 14:39:22.777", "2009-05-11T10:39:22.777-04:00"] {
            XCTAssertEqual(try date(text), 1_242_052_762.777, text)
        }
        for text in ["2011-08-09T00:00Z", "2009-W01-1", "2009-123", "2009-05-19 14:31", "2009-13-01",
                     "2009-02-30", "2009-05-11T25:00:00Z", "not a date", "2009-05-11T14:39:22+25:00"] {
            XCTAssertThrowsError(try date(text), text)
        }
        XCTAssertEqual(Timestamp(microseconds: 0).iso8601, "1970-01-01T00:00:00.000Z")
    }

    func testOtherDateFormatsI1I9I11I18() throws {
        XCTAssertEqual(try date("11/27/1982"), 407_203_200)
        XCTAssertEqual(try date("2012-03-01"), 1_330_560_000)
        XCTAssertEqual(try date("3001-01-01T00:00:00Z"), 32_535_216_000)
        XCTAssertEqual(try date("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(try date("Sunday, 06-Nov-94 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(try date("Sun Nov  6 08:49:37 1994"), 784_111_777)
        XCTAssertEqual(try date("0"), 0)
        XCTAssertEqual(try date("1387481530"), 1_387_481_530)
        XCTAssertEqual(try coerce(.integer(0), .date), .date(Timestamp(microseconds: 0)))
        XCTAssertEqual(try coerce(.real(1.5), .date), .date(Timestamp(microseconds: 1_500_000)))
    }

    func testDatesFormatBeforeTheEpochAndFarAhead() {
        XCTAssertEqual(Timestamp(microseconds: -1_000).iso8601, "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp(microseconds: 32_535_216_000_000_000).iso8601, "3001-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp(year: 2000, month: 2, day: 29)?.iso8601, "2000-02-29T00:00:00.000Z")
        XCTAssertNil(Timestamp(year: 1900, month: 2, day: 29))
    }

    func testJSONAttributesKeepTheValueK2K3() throws {
        XCTAssertEqual(try coerce(.array([.string("Hacking"), .string("Running")]), .json),
                       .json(.array([.string("Hacking"), .string("Running")])))
        XCTAssertEqual(try coerce(.string("x"), .json), .json(.string("x")))
    }
}
