import CMappingHeader
import Dispatch
import MappingLock
import XCTest
@testable import Mapping

/// The exported functions driven from Swift through the same handles a C caller uses.
final class CAPITests: XCTestCase {
    static let spec = """
        {"entities": {"Person": {"attributes": {"id": "integer", "name": "string"},
                                 "relationships": {"company": {"entity": "Company", "inverse": "employees"}}},
                      "Company": {"attributes": {"id": "integer"},
                                  "relationships": {"employees": {"entity": "Person", "toMany": true, "inverse": "company"}}}},
         "mappings": {"person": {"entity": "Person", "attributes": {"id": "id", "name": "name"},
                                 "relationships": {"company": {"mapping": "company"}}},
                      "company": {"entity": "Company", "attributes": {"id": "id"}}}}
        """

    static func newContext() -> OpaquePointer? {
        var context: OpaquePointer?
        let status = spec.withCString { mapping_context_new($0, Int(bitPattern: UInt.max), &context) }
        return status == 0 ? context : nil
    }

    static func importJSON(_ context: OpaquePointer?, _ json: String) -> CInt {
        json.withCString { mapping_context_import(context, "person", $0, Int(bitPattern: UInt.max), nil) }
    }

    func testVersionMatchesTheHeader() {
        XCTAssertEqual(Mapping.mapping_version_number(), MAPPING_VERSION_MAJOR * 10_000 + MAPPING_VERSION_MINOR * 100 + MAPPING_VERSION_PATCH)
        XCTAssertEqual(Mapping.mapping_version().map { String(cString: $0) }, MAPPING_VERSION_STRING)
    }

    func testImportReadAndErrorRecord() throws {
        let context = try XCTUnwrap(Self.newContext())
        defer { mapping_context_free(context) }
        XCTAssertEqual(Self.importJSON(context, #"[{"id": 1, "name": "Ada", "company": {"id": 3}}]"#), 0)
        var person: UInt64 = 0
        XCTAssertEqual(mapping_entity_find(context, "Person", "1", &person), 0)
        var name: UnsafePointer<CChar>?
        var length = 0
        XCTAssertEqual(mapping_object_get_string(context, person, "name", &name, &length), 0)
        XCTAssertEqual(name.map { String(cString: $0) }, "Ada")
        XCTAssertEqual(length, 3)
        XCTAssertEqual(Self.importJSON(context, #"[{"id": "one"}]"#), CInt(MAPPING_ETYPE.rawValue))
        let record = try XCTUnwrap(mapping_error_last(context)).pointee
        XCTAssertEqual(record.code, CInt(MAPPING_ETYPE.rawValue))
        XCTAssertEqual(String(cString: record.path), "$[0].id")
        XCTAssertEqual(String(cString: record.attribute), "Person.id")
        var count = 0
        XCTAssertEqual(mapping_entity_count(context, "Person", &count), 0)
        XCTAssertEqual(count, 1)
        XCTAssertEqual(String(cString: try XCTUnwrap(mapping_error_message(context))), "", "cleared by the success")
    }
}
