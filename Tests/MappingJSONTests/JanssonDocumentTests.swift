import XCTest
import MappingCore
@testable import MappingJSON

/// The jansson backend: parse errors with positions, strings with NUL bytes and non-ASCII keys,
/// and the conversion of small documents to `JSONValue`.
final class JanssonDocumentTests: XCTestCase {
    func testParseErrorsCarryLineColumnAndPosition() {
        XCTAssertThrowsError(try JanssonDocument.parse("[1,\n 2,,]")) { error in
            let error = error as? MappingError
            XCTAssertEqual(error?.code, .parse)
            XCTAssertEqual(error?.line, 2)
            XCTAssertEqual(error?.column, 4)
            XCTAssertEqual(error?.position, 7)  // the 0-based offset of the second comma
            XCTAssertTrue(error?.message.hasPrefix("malformed JSON at line 2, column 4") == true)
        }
        XCTAssertThrowsError(try JanssonDocument.parse(""))
        XCTAssertThrowsError(try JanssonDocument.parse("{\"a\": 1} trailing"))
        XCTAssertThrowsError(try JanssonDocument.parse("[123456789012345678901234567890]"), "beyond int64")
    }

    func testValuesAndKeysAreReadExactly() throws {
        let document = try JanssonDocument.parse(#"{"naïve": "a\u0000b", "n": -9223372036854775808, "r": 0.5, "list": [true, null]}"#)
        let value = try document.value()
        XCTAssertEqual(value["naïve"], .string("a\u{0}b"))
        XCTAssertEqual(value["n"], .integer(Int64.min))
        XCTAssertEqual(value["r"], .real(0.5))
        XCTAssertEqual(value["list"], .array([.bool(true), .null]))
        let reader = JanssonReader()
        XCTAssertNotNil(reader.member(of: document.root, key: PlanKey("naïve")))
        XCTAssertNil(reader.member(of: document.root, key: PlanKey("naive")))
        XCTAssertNil(reader.element(of: document.root, at: 0), "not an array")
        XCTAssertEqual(reader.count(of: document.root), 0)
    }

    func testDeepValuesAreBounded() throws {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        XCTAssertThrowsError(try JanssonDocument.parse(deep).value(depthLimit: 256)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .depth)
        }
    }

    func testSpecThatIsNotJSONIsASpecErrorWithPosition() {
        XCTAssertThrowsError(try CompiledSpec.load(json: "{\n\"entities\": ")) { error in
            let error = error as? MappingError
            XCTAssertEqual(error?.code, .spec)
            XCTAssertEqual(error?.line, 2)
        }
    }
}
