import XCTest
@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Path patterns: RestKit's RKPathMatcher cases and SOCKit's.
final class PathPatternTests: XCTestCase {
    private func pattern(_ text: String) throws -> PathPattern { try PathPattern(text) }

    private func match(_ pattern: String, _ path: String, query: Bool) throws -> [String: JSONValue]? {
        try self.pattern(pattern).match(path, queryParameters: query)
    }

    private func strings(_ values: [String: String]) -> [String: JSONValue] { values.mapValues(JSONValue.string) }

    private func interpolate(_ pattern: String, _ values: JSONValue, escaping: Bool = false) throws -> String {
        try self.pattern(pattern).interpolate(escaping: escaping) { PathValues.lookUp($0, in: values) }
    }

    private let joe: JSONValue = .object([JSONMember("password", .string("JUICE|BOX&121")),
                                          JSONMember("name", .string("Joe Bob Briggs")), JSONMember("group", .integer(15))])

    func testMatchingA1ToA5() throws {
        XCTAssertEqual(try match("/this/is/:controllerName/:entityName", "/this/is/my/backend?foo=bar&this=that", query: true),
                       strings(["controllerName": "my", "entityName": "backend", "foo": "bar", "this": "that"]))  // A1
        XCTAssertEqual(try match("/bills/:stateID/:session/:billID", "/bills/tx/82/SB%2014?apikey=GC12d0c6af", query: true),
                       strings(["stateID": "tx", "session": "82", "billID": "SB 14", "apikey": "GC12d0c6af"]))  // A2
        XCTAssertEqual(try match("github.com/:username", "github.com/jverkoey", query: false), strings(["username": "jverkoey"]))  // A3
        XCTAssertEqual(try match("/metadata", "/metadata", query: false), [:])  // A4
        XCTAssertNil(try match("/metadata/:stateID", "/metadata?apikey=GC12d0c6af", query: true))  // A5
        XCTAssertEqual(try match("/metadata", "/metadata?apikey=GC12d0c6af", query: true), strings(["apikey": "GC12d0c6af"]))
    }

    func testInterpolationA6ToA10() throws {
        XCTAssertEqual(try interpolate("/people/:name/:age", .object([JSONMember("name", .string("CuddleGuts")),
                                                                       JSONMember("age", .integer(6))]), escaping: true),
                       "/people/CuddleGuts/6")  // A6
        XCTAssertEqual(try interpolate("/people/:group/:name?password=:password", joe, escaping: true),
                       "/people/15/Joe%20Bob%20Briggs?password=JUICE%7CBOX%26121")  // A7
        XCTAssertEqual(try interpolate("/people/:group/:name?password=:password", joe),
                       "/people/15/Joe Bob Briggs?password=JUICE|BOX&121")  // A8
        XCTAssertEqual(try interpolate(#"/directory/:filename\.json"#, .object([JSONMember("filename", .string("Resources"))]), escaping: true),
                       "/directory/Resources.json")  // A9
        let path = try interpolate("/names/:name", .object([JSONMember("name", .string("Blake Watters"))]), escaping: true)
        XCTAssertEqual(path, "/names/Blake%20Watters")  // A10: the path is escaped ...
        XCTAssertEqual(try match("/names/:name", path, query: false), strings(["name": "Blake Watters"]), "... its parameters are not")
    }

    func testTrailingSlashesAndAggressiveMatchesA11ToA15() throws {
        XCTAssertNotNil(try match("/api/v1/organizations/", "/api/v1/organizations/?client_search=t", query: false))  // A11
        let path = "/api/v1/organizations/1234/another?client_search=t"
        XCTAssertNil(try match("/api/v1/organizations", path, query: false))  // A12 a
        XCTAssertNil(try match("/api/:version/organizations", path, query: false))  // b
        XCTAssertNil(try match("/api/:version/organizations", "/api/v1/organizations/", query: false))  // c
        XCTAssertEqual(try match("/api/:version/organizations/:organizationID", "/api/v1/organizations/1234", query: false),
                       strings(["version": "v1", "organizationID": "1234"]))  // d
        XCTAssertEqual(try match("/api/v1/organizations/:identifier/", "/api/v1/organizations/1/", query: true),
                       strings(["identifier": "1"]))  // A13
        XCTAssertEqual(try match("/api/v1/organizations/", "/api/v1/organizations/?client_search=s", query: true),
                       strings(["client_search": "s"]))  // A14
        let long = "/categories/some-category-name/articles/the-article-name"
        XCTAssertNil(try match("/categories", long, query: false))  // A15 a
        XCTAssertNil(try match("/categories/:categoryName", long, query: false))  // b
        XCTAssertEqual(try match("/categories/:categorySlug/articles/:articleSlug", long, query: false),
                       strings(["categorySlug": "some-category-name", "articleSlug": "the-article-name"]))  // c
    }

    func testSOCKitCodingB1ToB5B7B8() throws {
        let values: JSONValue = .object([JSONMember("leet", .integer(1337)), JSONMember("five", .integer(5000))])
        for (text, expected) in [("", ""), (" ", " "), ("abcdef", "abcdef")] {
            XCTAssertEqual(try interpolate(text, .null), expected)  // B1
        }
        XCTAssertThrowsError(try pattern(":dilly:isacat"))  // B2
        XCTAssertEqual(try interpolate(":leet", values), "1337")  // B3
        XCTAssertEqual(try interpolate(":five", values), "5000")
        XCTAssertEqual(try interpolate(":six", values), "(null)")
        XCTAssertEqual(try interpolate(":leet/:five", values), "1337/5000")  // B4
        XCTAssertEqual(try interpolate(":five/:five", values), "5000/5000")
        XCTAssertEqual(try interpolate(":five/:five/:five/:five/:five/:five", values), "5000/5000/5000/5000/5000/5000")
        for (text, expected) in [(".", "."), (#"\."#, "."), (":", ":"), (#"\:"#, ":"), ("@", "@"), (#"\@"#, "@"),
                                 (#":leet\.value"#, "1337.value"), (#":leet\:value"#, "1337:value"),
                                 (#":leet\@value"#, "1337@value"), (#":leet\:\:value"#, "1337::value"),
                                 (#":leet\:\:\.\@value"#, "1337::.@value"), (#"\\:leet"#, #"\1337"#)] {
            XCTAssertEqual(try interpolate(text, values), expected, text)  // B5
        }
        XCTAssertEqual(try interpolate(":@count", values), "2")  // B7
        XCTAssertEqual(try interpolate("/people/:group/:name?password=:password", joe),
                       "/people/15/Joe Bob Briggs?password=JUICE|BOX&121")  // B8 without a block
        XCTAssertEqual(try interpolate("/people/:group/:name?password=:password", joe, escaping: true),
                       "/people/15/Joe%20Bob%20Briggs?password=JUICE%7CBOX%26121")  // B8 with URL encoding
    }

    func testSOCKitMatchingB6B9B10() throws {
        XCTAssertNotNil(try match(#"soc://\:ident"#, "soc://:ident", query: false))  // B6
        XCTAssertEqual(try match(#"soc://\\:ident"#, #"soc://\3"#, query: false), strings(["ident": "3"]))
        XCTAssertEqual(try match(#"soc://:ident\.json"#, "soc://3.json", query: false), strings(["ident": "3"]))
        for path in ["soc://3", "soc://33413413454353254235245235", "soc://joe"] {
            XCTAssertNotNil(try match("soc://:ident", path, query: false), path)  // B9
        }
        XCTAssertNil(try match("soc://:ident", "", query: false))
        XCTAssertNil(try match("soc://:ident", "soc://", query: false))
        XCTAssertNotNil(try match("soc://:ident/sandwich", "soc://3/sandwich", query: false))
        XCTAssertNil(try match("soc://:ident/sandwich", "soc:///sandwich", query: false))
        XCTAssertNotNil(try match("soc://:ident/sandwich/:catName", "soc://3/sandwich/dilly", query: false))
        XCTAssertNil(try match("soc://:ident/sandwich/:catName", "soc://334/sandwich/", query: false))
        XCTAssertNil(try match("soc://:ident/sandwich/:catName", "soc:///sandwich/", query: false))
        XCTAssertEqual(try match("soc://:ident/:flv/:dv/:llv/:string", "soc://3/3.5/6.14/13413143124321/dilly", query: false),
                       strings(["ident": "3", "flv": "3.5", "dv": "6.14", "llv": "13413143124321", "string": "dilly"]))  // B10
    }

    func testQueryStringsN16N17N18() {
        XCTAssertEqual(QueryString.decodeObject("keyA=valA&keyB=valB"),
                       .object([JSONMember("keyA", .string("valA")), JSONMember("keyB", .string("valB"))]))  // N16
        XCTAssertEqual(QueryString.decodeObject("this=that&this=theOther"),
                       .object([JSONMember("this", .array([.string("that"), .string("theOther")]))]))  // N17
        let complex = "resource_uri=%2Fapi%2Fv1%2Fdevices%2F60%2F&id=60&uuid=8BF7D194-FE8D-46BD-8D07-83F5C73C50B9&pass_token=QazYDHaLeg&apns_token=&organizations%5B%5D=%2Fapi%2Fv1%2Forganizations%2F1%2F&organizations%5B%5D=%2Fapi%2Fv1%2Forganizations%2F2%2F"
        XCTAssertEqual(QueryString.decodeObject(complex), .object([
            JSONMember("resource_uri", .string("/api/v1/devices/60/")), JSONMember("id", .string("60")),
            JSONMember("uuid", .string("8BF7D194-FE8D-46BD-8D07-83F5C73C50B9")), JSONMember("pass_token", .string("QazYDHaLeg")),
            JSONMember("apns_token", .string("")),
            JSONMember("organizations[]", .array([.string("/api/v1/organizations/1/"), .string("/api/v1/organizations/2/")]))]))  // N18
        XCTAssertEqual(QueryString.decodeObject("novalue&a=1"), .object([JSONMember("a", .string("1"))]))
    }

    func testInterpolationFromGraphObjects() throws {
        let ctx = try TestFixtures.context("""
            {"entities": {"User": {"attributes": {"userID": "integer", "name": "string"},
                                   "relationships": {"company": {"entity": "Company"}, "friends": {"entity": "User", "toMany": true}}},
                          "Company": {"attributes": {"slug": "string"}}},
             "mappings": {"user": {"entity": "User", "attributes": {"userID": "id", "name": "name"},
                                   "relationships": {"company": {"mapping": "company"}, "friends": {"mapping": "user"}}},
                          "company": {"entity": "Company", "attributes": {"slug": "slug"}}}}
            """)
        let user = try XCTUnwrap(ctx.importJSON(mapping: "user", #"{"id": 12345, "name": "Blake W", "company": {"slug": "rest kit"}, "friends": [{"id": 1}, {"id": 2}]}"#).first)
        XCTAssertEqual(try ctx.path(try pattern("/users/:userID/:company.slug/:friends.@count"), from: user, escaping: true),
                       "/users/12345/rest%20kit/2")
        XCTAssertEqual(try ctx.path(try pattern("/users/:nope"), from: user, escaping: false), "/users/(null)")
    }
}
