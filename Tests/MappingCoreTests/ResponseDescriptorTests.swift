import XCTest
@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Response descriptors and mapping whole responses.
final class ResponseDescriptorTests: XCTestCase {
    private func descriptor(_ pattern: String?) throws -> ResponseDescriptor {
        ResponseDescriptor(mapping: .plain(0), methods: .any, pattern: try pattern.map(PathPattern.init), keyPath: nil,
                           statusCodes: Set(200..<300), errorMessage: nil)
    }

    private func matches(_ pattern: String?, base: String?, _ url: String) throws -> Bool {
        try descriptor(pattern).match(url: url, baseURL: base) != nil
    }

    func testMatchingURLsD1ToD9() throws {
        XCTAssertTrue(try matches(nil, base: nil, "http://restkit.org/monkeys/1234.json"))  // D1
        XCTAssertTrue(try matches(#"/monkeys/:monkeyID\.json"#, base: nil, "http://restkit.org/monkeys/1234.json"))  // D2
        XCTAssertFalse(try matches(#"/monkeys/:monkeyID\.json"#, base: nil, "http://restkit.org/mismatch"))
        XCTAssertFalse(try matches(nil, base: "http://restkit.org", "http://google.com/monkeys/1234.json"))  // D3
        XCTAssertTrue(try matches(nil, base: "http://restkit.org", "http://restkit.org/whatever"))
        let monkeys = #"/monkeys/:monkeyID\.json"#
        XCTAssertFalse(try matches(monkeys, base: "http://restkit.org", URLResolution.resolve("/monkeys/1234.json", against: "http://google.com")))  // D4
        XCTAssertTrue(try matches(monkeys, base: "http://restkit.org", URLResolution.resolve("/monkeys/1234.json", against: "http://restkit.org")))
        XCTAssertFalse(try matches(monkeys, base: "http://restkit.org", "http://restkit.org/mismatch"))
        XCTAssertTrue(try matches(monkeys, base: "http://restkit.org", "http://restkit.org/monkeys/1234.json?param1=val1&param2=val2"))
        XCTAssertTrue(try matches("/api/v1/organizations/", base: "http://0.0.0.0:5000",
                                  "http://0.0.0.0:5000/api/v1/organizations/?client_search=t"))  // D5
        XCTAssertFalse(try matches(nil, base: "http://restkit.org/api/v1/", "http://restkit.org/monkeys/1234.json"))  // D6
        XCTAssertTrue(try matches(nil, base: "http://restkit.org/api/v1/", "http://restkit.org/api/v1/whatever"))
        XCTAssertFalse(try matches("/whatever", base: "http://restkit.org/api/v1/",
                                   URLResolution.resolve("monkeys/1234.json", against: "http://google.com")))  // D7
        let relative = #"monkeys/:monkeyID\.json"#
        let base = "http://restkit.org/api/v1/"
        XCTAssertTrue(try matches(relative, base: base, URLResolution.resolve("monkeys/1234.json", against: base)))  // D8
        XCTAssertFalse(try matches(relative, base: base, URLResolution.resolve("mismatch", against: base)))
        XCTAssertTrue(try matches(relative, base: base, "http://restkit.org/api/v1/monkeys/1234.json"))
        XCTAssertFalse(try matches(relative, base: base, "http://restkit.org/api/v1/mismatch"))
        let domain = "http://domain.com/domain/api/v1/"
        XCTAssertFalse(try matches("/recommendation/", base: domain, "http://domain.com/domain/api/v1/recommendation/"))  // D9
        XCTAssertFalse(try matches("/recommendation/", base: domain, "http://domain.com/domain/api/v1/recommendation?action=search&type=whatever"))
    }

    private let spec = """
        {"entities": {"User": {"attributes": {"code": "string", "name": "string", "via": "string"}, "identification": "code"},
                      "Hit": {"attributes": {"term": "string", "query": "string"}}},
         "mappings": {"user": {"entity": "User", "attributes": {"code": "code", "name": "name", "via": "@metadata.routing.parameters.code"}},
                      "hit": {"entity": "Hit", "attributes": {"term": "term", "query": "@metadata.query.parameters.q"}}},
         "responseDescriptors": [
           {"mapping": "user", "method": "GET", "pathPattern": "/users/:code", "keyPath": "user"},
           {"mapping": "hit", "method": "GET", "pathPattern": "/users/search", "keyPath": "user"},
           {"mapping": "user", "method": ["POST", "PUT"], "pathPattern": "/users", "keyPath": "user", "statusCodes": [201]},
           {"errorMessage": "message", "keyPath": "errors"}]}
        """

    func testEqualityD10() throws {
        func make(mapping: Int = 0, pattern: String = "/issues", keyPath: String = "issue", status: Set<Int> = [200])
            throws -> ResponseDescriptor {
            ResponseDescriptor(mapping: .plain(mapping), methods: .get, pattern: try PathPattern(pattern), keyPath: keyPath,
                               statusCodes: status, errorMessage: nil)
        }
        XCTAssertEqual(try make(), try make())
        XCTAssertNotEqual(try make(), try make(mapping: 1))
        XCTAssertNotEqual(try make(), try make(pattern: "/pull_requests"))
        XCTAssertNotEqual(try make(), try make(keyPath: "pull_request"))
        XCTAssertNotEqual(try make(), try make(status: [404]))
    }

    func testTheMostSpecificPatternWinsForAKeyPath() throws {
        let ctx = try TestFixtures.context(spec)
        let base = "http://api.example.com"
        let hits = try ctx.mapResponse(HTTPResponse(method: .get, url: base + "/users/search?q=ada", status: 200, baseURL: base),
                                       body: #"{"user": [{"term": "ada"}]}"#)
        XCTAssertEqual(try hits.map(ctx.entityName), ["Hit"], "users/search, not users/:code (RestKit's wrong-descriptor bug)")
        XCTAssertEqual(try ctx.value(of: hits[0], attribute: "query").0, .string("ada"), "query parameters as metadata")
        let users = try ctx.mapResponse(HTTPResponse(method: .get, url: base + "/users/u7", status: 200, baseURL: base),
                                        body: #"{"user": {"code": "u7", "name": "Ada"}}"#)
        XCTAssertEqual(try ctx.value(of: users[0], attribute: "via").0, .string("u7"), "routing parameters as metadata")
    }

    func testTheAnswerToAPostMapsIntoTheTargetObject() throws {
        let ctx = try TestFixtures.context(spec)
        let base = "http://api.example.com"
        let draft = try ctx.create("User", values: [JSONMember("name", .string("Draft"))])
        let answer = try ctx.mapResponse(HTTPResponse(method: .post, url: base + "/users", status: 201, baseURL: base, target: draft),
                                         body: #"{"user": {"code": "u5", "name": "Ada"}}"#)
        XCTAssertEqual(answer, [draft], "mapped into the object sent, not a new one")
        XCTAssertEqual(try ctx.object(of: "User", identity: .string("u5")), draft, "registered under its new identity")
        XCTAssertEqual(try ctx.count(of: "User"), 1)
        // Another object's identity for a second draft: refused, and nothing changes.
        let second = try ctx.create("User", values: [JSONMember("name", .string("Second"))])
        XCTAssertThrowsError(try ctx.mapResponse(HTTPResponse(method: .post, url: base + "/users", status: 201, baseURL: base, target: second),
                                                 body: #"{"user": {"code": "u5", "name": "Clash"}}"#)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .constraint)
        }
        XCTAssertEqual(try ctx.value(of: second, attribute: "code").0, nil)
        XCTAssertEqual(try ctx.value(of: draft, attribute: "name").0, .string("Ada"))
    }

    func testStatusMethodAndErrors() throws {
        let ctx = try TestFixtures.context(spec)
        let base = "http://api.example.com"
        XCTAssertThrowsError(try ctx.mapResponse(HTTPResponse(method: .post, url: base + "/users", status: 200, baseURL: base),
                                                 body: #"{"user": {"code": "x"}}"#)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .mapping, "201 only")
        }
        XCTAssertEqual(try ctx.mapResponse(HTTPResponse(method: .put, url: base + "/users", status: 201, baseURL: base),
                                           body: #"{"user": {"code": "x"}}"#).count, 1)
        XCTAssertThrowsError(try ctx.mapResponse(HTTPResponse(method: .get, url: base + "/users/u1", status: 422, baseURL: base),
                                                 body: #"{"errors": [{"message": "Invalid page number."}, {"message": "Try again."}]}"#)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .response)
            XCTAssertEqual((error as? MappingError)?.message,
                           "GET http://api.example.com/users/u1 answered 422: Invalid page number., Try again.")
        }
        XCTAssertThrowsError(try ctx.mapResponse(HTTPResponse(method: .get, url: base + "/users/u1", status: 500, baseURL: base), body: "")) { error in
            XCTAssertEqual((error as? MappingError)?.message, "GET http://api.example.com/users/u1 answered 500")
        }
        XCTAssertEqual(try ctx.count(of: "User"), 1, "errors map nothing")
        XCTAssertEqual(try ctx.mapResponse(HTTPResponse(method: .get, url: base + "/users/u9", status: 200, baseURL: base), body: ""), [])
    }
}
