import XCTest
@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Request descriptors: objects as request parameters.
final class RequestDescriptorTests: XCTestCase {
    private let spec = """
        {"entities": {"User": {"attributes": {"id": "integer", "name": "string", "website": "string"}},
                      "Admin": {"parent": "User"}, "Note": {"attributes": {"text": "string"}}},
         "mappings": {"user": {"entity": "User", "attributes": {"id": "id", "name": "name", "website": "website"}},
                      "userUpdate": {"entity": "User", "attributes": {"name": "name"}},
                      "note": {"entity": "Note", "attributes": {"text": "text"}}},
         "requestDescriptors": [{"entity": "User", "method": "POST", "mapping": "user", "rootKeyPath": "user"},
                                {"entity": "User", "method": ["PUT", "PATCH"], "mapping": "userUpdate", "rootKeyPath": "user"},
                                {"entity": "Note", "method": "ANY", "mapping": "note"}]}
        """

    func testParametersJSONAndFormN5N7() throws {
        let ctx = try TestFixtures.context(spec)
        let blake = try XCTUnwrap(ctx.importJSON(mapping: "user", #"{"id": 1, "name": "Blake Watters"}"#).first)
        XCTAssertEqual(try ctx.parameters(for: [blake], method: .post, form: false),
                       #"{"user":{"id":1,"name":"Blake Watters","website":null}}"#)  // N5 root key path, N7 nulls
        XCTAssertEqual(try ctx.parameters(for: [blake], method: .patch, form: true), "user[name]=Blake%20Watters")
        let admin = try XCTUnwrap(ctx.importJSON(mapping: "user", #"{"id": 2, "name": "A"}"#).first)
        XCTAssertEqual(try ctx.parameters(for: [blake, admin], method: .put, form: false),
                       #"{"user":[{"name":"Blake Watters"},{"name":"A"}]}"#, "several objects: an array under the root")
        let note = try XCTUnwrap(ctx.importJSON(mapping: "note", #"{"text": null}"#).first)
        XCTAssertEqual(try ctx.parameters(for: [note], method: .delete, form: false), #"{"text":null}"#)  // N9-like
        XCTAssertEqual(try ctx.parameters(for: [note], method: .delete, form: true), "text", "null as a bare key")
        XCTAssertThrowsError(try ctx.parameters(for: [note, note], method: .delete, form: true), "an array needs a root key path for a form")
        XCTAssertThrowsError(try ctx.parameters(for: [blake, note], method: .post, form: false)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .misuse, "different root key paths")
        }
    }
}
