import CMappingHeader
import XCTest
@testable import Mapping
import MappingCore

/// The engine's error codes against the header's `mapping_status` constants: the number Swift
/// callers see (`MappingError.Code.rawValue`), the number C sees (`status`, built from the header)
/// and the name the library gives it must agree for every code. (The Python binding's copies are
/// compared with the header by bindings/python/tests/test_abi_tables.py.)
final class StatusCodeTests: XCTestCase {
    func testEveryCodeHasTheHeadersNumberAndName() throws {
        for code in MappingError.Code.allCases {
            XCTAssertEqual(code.rawValue, code.status, "\(code)")
            let name = try XCTUnwrap(Mapping.mapping_error_name(code.status).map { String(cString: $0) })
            XCTAssertTrue(name.hasPrefix("MAPPING_E") && name != "MAPPING_E?", "\(code): \(name)")
        }
        XCTAssertEqual(Set(MappingError.Code.allCases.map(\.status)).count, MappingError.Code.allCases.count)
    }

    func testNumbersOutsideTheHeaderHaveNoName() {
        let known = Set(MappingError.Code.allCases.map(\.rawValue) + [0])
        for number in CInt(-40)...CInt(5) where !known.contains(number) {
            XCTAssertEqual(Mapping.mapping_error_name(number).map { String(cString: $0) }, "MAPPING_E?", "\(number)")
        }
        XCTAssertEqual(Mapping.mapping_error_name(CInt(MAPPING_OK.rawValue)).map { String(cString: $0) }, "MAPPING_OK")
    }
}
