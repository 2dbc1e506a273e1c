import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Null and missing keys and the fixtures of RestKit's suite.
final class NullAndKeyPathTests: XCTestCase {
    private let userSpec = """
        {"entities": {"User": {"attributes": {"userID": "integer", "name": "string", "country": "string",
                                              "interests": "json", "addressDictionary": "json",
                                              "birthDate": "date", "isDeveloper": "boolean", "weight": "decimal",
                                              "luckyNumber": "integer", "createdAt": "date", "website": "string"},
                               "relationships": {"friend": {"entity": "User"}}}},
         "mappings": {"user": {"entity": "User", "attributes": {
            "userID": "id", "name": "name", "country": "address.country", "interests": "interests",
            "addressDictionary": "address", "birthDate": "birthdate", "isDeveloper": "is_developer",
            "weight": "weight", "luckyNumber": "lucky_number", "createdAt": "created_at", "website": "website"},
            "relationships": {"friend": {"mapping": "user"}}}}}
        """

    func testUserFixtureK1K2K3I1I3I4I5() throws {
        let ctx = try TestFixtures.context(userSpec)
        let user = try XCTUnwrap(ctx.importJSON(mapping: "user", try TestFixtures.text("reference/user.json")).first)
        func value(_ name: String) throws -> AttributeValue? { try ctx.value(of: user, attribute: name).0 }
        XCTAssertEqual(try value("country"), .string("USA"))
        XCTAssertEqual(try value("interests"), .json(.array([.string("Hacking"), .string("Running")])))
        XCTAssertEqual(try value("addressDictionary"), .json(.object([
            JSONMember("id", .integer(1234)), JSONMember("city", .string("Carrboro")),
            JSONMember("state", .string("North Carolina")), JSONMember("country", .string("USA"))])))
        XCTAssertEqual(try value("birthDate"), .date(Timestamp(microseconds: 407_203_200_000_000)))
        XCTAssertEqual(try value("isDeveloper"), .boolean(true))
        XCTAssertEqual(try value("weight"), .decimal(ExactDecimal(parsing: "131.3")!))
        XCTAssertEqual(try value("luckyNumber"), .integer(187))
        XCTAssertEqual(try value("createdAt"), .date(Timestamp(microseconds: 1_296_633_188_000_000)))
        XCTAssertEqual(try value("website"), .string("http://restkit.org/"))
    }

    func testNullsInCollectionsAreIgnoredJ10() throws {
        let ctx = try TestFixtures.context(userSpec)
        _ = try ctx.importJSON(mapping: "user", try TestFixtures.text("reference/users.json"))
        let jeremy = try XCTUnwrap(ctx.object(of: "User", identity: .integer(187)))
        let friend = try XCTUnwrap(ctx.relatedObject(of: jeremy, relationship: "friend"))
        XCTAssertEqual(try ctx.value(of: friend, attribute: "name").0, .string("Anthony Stark"))
        let mapped = try ctx.importJSON(mapping: "user", #"[null, {"id": 255}, null]"#)
        XCTAssertEqual(mapped, [friend])
    }

    func testNullClearsMissingKeepsJ1J5J7() throws {
        let ctx = try TestFixtures.context(userSpec)
        let user = try ctx.importJSON(mapping: "user", #"{"id": 1, "name": "Blake Watters", "weight": "1"}"#)
        _ = try ctx.importJSON(mapping: "user", #"{"id": 1, "weight": "2"}"#)
        XCTAssertEqual(try ctx.value(of: user[0], attribute: "name").0, .string("Blake Watters"), "J5: missing keeps")
        _ = try ctx.importJSON(mapping: "user", #"{"id": 1, "name": null}"#)
        XCTAssertNil(try ctx.value(of: user[0], attribute: "name").0, "J1/J7: null clears")
        XCTAssertEqual(try ctx.value(of: user[0], attribute: "weight").0, .decimal(ExactDecimal(2)))
        _ = try ctx.importJSON(mapping: "user", #"{"id": 1, "birthdate": ""}"#)
        XCTAssertNil(try ctx.value(of: user[0], attribute: "birthDate").0, "I10: an empty date is not set")
    }
}
