import XCTest
@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Routing: entities for classes, parent entities for superclasses.
final class RouterTests: XCTestCase {
    private func spec(_ routes: String) -> String {
        """
        {"entities": {"Object": {"attributes": {"userID": "integer"},
                                 "relationships": {"friends": {"entity": "Object", "toMany": true},
                                                   "enemies": {"entity": "Object", "toMany": true}}},
                      "Subclassed": {"parent": "Object"}, "Deeply": {"parent": "Subclassed"}},
         "mappings": {"object": {"entity": "Object", "attributes": {"userID": "userID"}},
                      "subclassed": {"entity": "Subclassed", "attributes": {"userID": "userID"}},
                      "deeply": {"entity": "Deeply", "attributes": {"userID": "userID"}}},
         "routes": [\(routes)]}
        """
    }

    private func context(_ routes: String) throws -> MappingContext { try TestFixtures.context(spec(routes)) }

    private func object(_ ctx: MappingContext, _ mapping: String) throws -> ObjectID {
        try XCTUnwrap(ctx.importJSON(mapping: mapping, #"{"userID": 12345}"#).first)
    }

    private func path(_ ctx: MappingContext, _ mapping: String, _ method: HTTPMethods) throws -> String {
        try ctx.routePath(object: try object(ctx, mapping), method: method, escaping: false)
    }

    private func expectSpecError(_ routes: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try context(routes), file: file, line: line) { error in
            XCTAssertTrue((error as? MappingError)?.message.contains(fragment) == true, "\(error)", file: file, line: line)
            XCTAssertTrue((error as? MappingError)?.path.hasPrefix("$.routes[") == true, file: file, line: line)
        }
    }

    func testNamedRoutesNeedOneMethodC1() {
        expectSpecError(#"{"name": "x", "method": "ANY", "path": "/x"}"#, "one method")
        expectSpecError(#"{"name": "x", "method": ["POST", "DELETE"], "path": "/x"}"#, "one method")
        XCTAssertNoThrow(try context(#"{"entity": "Object", "method": ["POST", "DELETE"], "path": "/x"}, {"entity": "Object", "relationship": "friends", "method": ["GET", "HEAD"], "path": "/f"}"#))
    }

    func testPathsForObjectsAndNamedRoutesC2C3C4() throws {
        let ctx = try context(#"{"entity": "Object", "method": "ANY", "path": "/users/:userID"}, {"name": "airlines_list", "method": "GET", "path": "/airlines.json"}, {"name": "user_bookmarks", "method": "GET", "path": "/users/:userID/bookmarks"}"#)
        let user = try object(ctx, "object")
        let relative = try ctx.routePath(object: user, method: .get, escaping: false)
        XCTAssertEqual(URLResolution.resolve(relative, against: "http://restkit.org/"), "http://restkit.org/users/12345")  // C2
        XCTAssertEqual(try ctx.routePath(name: "airlines_list", object: nil, method: .get, escaping: false), "/airlines.json")  // C3
        XCTAssertEqual(try ctx.routePath(name: "user_bookmarks", object: user, method: .get, escaping: false), "/users/12345/bookmarks")  // C4
        XCTAssertThrowsError(try ctx.routePath(name: "nope", object: nil, method: .get, escaping: false)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .notFound)
        }
    }

    func testDuplicatesC5C6C7C8C9() {
        expectSpecError(#"{"name": "a", "method": "GET", "path": "/a"}, {"name": "a", "method": "GET", "path": "/b"}"#, "already exists")  // C5
        XCTAssertNoThrow(try context(#"{"name": "a", "method": "GET", "path": "/same"}, {"name": "b", "method": "GET", "path": "/same"}"#))  // C6
        expectSpecError(#"{"entity": "Object", "method": "GET", "path": "/routes"}, {"entity": "Object", "method": "POST", "path": "/routes"}, {"entity": "Object", "method": "POST", "path": "/routes2"}"#, "already exists")  // C7
        XCTAssertNoThrow(try context(#"{"entity": "Object", "method": "ANY", "path": "/a"}, {"entity": "Object", "method": "POST", "path": "/b"}"#))  // C8
        expectSpecError(#"{"entity": "Object", "relationship": "friends", "method": "GET", "path": "/f"}, {"entity": "Object", "relationship": "friends", "method": "POST", "path": "/f"}, {"entity": "Object", "relationship": "friends", "method": "GET", "path": "/g"}"#, "already exists")  // C9
    }

    func testMethodPreferenceC10C11C12() throws {
        let bitmask = try context(#"{"entity": "Object", "method": ["HEAD", "GET"], "path": "/users/:userID"}"#)
        XCTAssertEqual(try path(bitmask, "object", .get), "/users/12345")  // C10
        let overWildcard = try context(#"{"entity": "Object", "method": "ANY", "path": "/users/:userID/whatever"}, {"entity": "Object", "method": ["HEAD", "GET"], "path": "/users/:userID"}"#)
        XCTAssertEqual(try path(overWildcard, "object", .get), "/users/12345")  // C11
        let exact = try context(#"{"entity": "Object", "method": "ANY", "path": "/any"}, {"entity": "Object", "method": "POST", "path": "/post"}"#)
        XCTAssertEqual(try path(exact, "object", .post), "/post")  // C12
    }

    func testInheritanceC13ToC20() throws {
        XCTAssertEqual(try path(try context(#"{"entity": "Object", "method": "GET", "path": "/object"}"#), "subclassed", .get), "/object")  // C13
        XCTAssertEqual(try path(try context(#"{"entity": "Object", "method": "GET", "path": "/users/:userID"}, {"entity": "Subclassed", "method": "GET", "path": "/subclassed/users/:userID"}, {"entity": "Deeply", "method": "GET", "path": "/deeply/subclassed/users/:userID"}"#), "deeply", .get),
                       "/deeply/subclassed/users/12345")  // C14
        XCTAssertEqual(try path(try context(#"{"entity": "Object", "method": "POST", "path": "/users/:userID"}, {"entity": "Subclassed", "method": "ANY", "path": "/subclasses/users/:userID"}, {"entity": "Deeply", "method": "GET", "path": "/deeply/users/:userID"}"#), "deeply", .post),
                       "/subclasses/users/12345")  // C15
        XCTAssertEqual(try path(try context(#"{"entity": "Object", "method": "GET", "path": "/1"}, {"entity": "Object", "method": "POST", "path": "/2"}, {"entity": "Subclassed", "method": "GET", "path": "/3"}"#), "subclassed", .get), "/3")  // C16
        XCTAssertEqual(try path(try context(#"{"entity": "Object", "method": "GET", "path": "/1"}, {"entity": "Object", "method": "POST", "path": "/2"}, {"entity": "Subclassed", "method": "ANY", "path": "/3"}"#), "subclassed", .get), "/3")  // C17
        XCTAssertEqual(try path(try context(#"{"entity": "Object", "method": "GET", "path": "/1"}, {"entity": "Object", "method": "ANY", "path": "/2"}"#), "subclassed", .get), "/1")  // C18
        XCTAssertEqual(try path(try context(#"{"entity": "Object", "method": ["GET", "HEAD"], "path": "/1"}, {"entity": "Object", "method": "ANY", "path": "/2"}"#), "subclassed", .get), "/1")  // C19
        XCTAssertEqual(try path(try context(#"{"entity": "Object", "method": "GET", "path": "/1"}, {"entity": "Object", "method": "ANY", "path": "/2"}"#), "subclassed", .post), "/2")  // C20
    }

    func testRouteListsAndRelationshipsC21C22() throws {
        let ctx = try context(#"{"entity": "Object", "method": "GET", "path": "/1"}, {"entity": "Object", "method": "POST", "path": "/2"}, {"entity": "Subclassed", "method": "GET", "path": "/3"}, {"entity": "Object", "relationship": "friends", "method": "GET", "path": "/users/:userID/friends"}, {"entity": "Object", "relationship": "friends", "method": "POST", "path": "/users/:userID/friends"}, {"entity": "Object", "relationship": "enemies", "method": "ANY", "path": "/users/:userID/enemies"}"#)
        let model = ctx.model
        let object = try XCTUnwrap(model.entityIndex(named: "Object"))
        let subclassed = try XCTUnwrap(model.entityIndex(named: "Subclassed"))
        XCTAssertEqual(ctx.spec.routes.routes(for: object, inherited: false, model: model).count, 2)  // C21
        XCTAssertEqual(ctx.spec.routes.routes(for: subclassed, inherited: true, model: model).count, 3)
        XCTAssertEqual(ctx.spec.routes.routes(forRelationship: "friends").count, 2)  // C22
        let user = try self.object(ctx, "object")
        XCTAssertEqual(try ctx.routePath(object: user, relationship: "enemies", method: .get, escaping: false), "/users/12345/enemies")
    }

    func testURLResolutionRFC3986() {
        let base = "http://a/b/c/d;p?q"
        for (reference, expected) in [("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
                                      ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"),
                                      ("g?y", "http://a/b/c/g?y"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"),
                                      ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"),
                                      ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../g", "http://a/g"),
                                      ("g;x=1/../y", "http://a/b/c/y"), ("https://x/y", "https://x/y")] {
            XCTAssertEqual(URLResolution.resolve(reference, against: base), expected, reference)
        }
        XCTAssertEqual(URLResolution.resolve("monkeys/1234.json", against: "http://restkit.org/api/v1/"),
                       "http://restkit.org/api/v1/monkeys/1234.json")
        XCTAssertEqual(URLResolution.resolve("/monkeys/1234.json", against: "http://restkit.org/api/v1/"),
                       "http://restkit.org/monkeys/1234.json")
    }
}
