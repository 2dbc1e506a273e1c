import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Key paths at full breadth: dynamic keys (K4, K5, F5), `@parent`/`@root` (M8–M10), alternatives,
/// array steps, one key into several properties.
final class KeyPathTests: XCTestCase {
    private let usersSpec = """
        {"entities": {"User": {"attributes": {"name": "string", "userID": "integer", "website": "string"},
                               "identification": "name",
                               "relationships": {"address": {"entity": "Address"}}},
                      "Address": {"attributes": {"city": "string", "state": "string"}}},
         "mappings": {"user": {"entity": "User", "rootPath": "users", "keyOfRepresentation": "name",
                               "attributes": {"userID": "id", "website": "website"},
                               "relationships": {"address": {"mapping": "address"}}},
                      "address": {"entity": "Address", "attributes": {"city": "city", "state": "state"}}}}
        """

    func testDynamicKeysK4() throws {
        let ctx = try TestFixtures.context(usersSpec)
        let users = try ctx.importJSON(mapping: "user", try TestFixtures.text("reference/DynamicKeys.json"))
        XCTAssertEqual(try users.map { try ctx.value(of: $0, attribute: "name").0 }, [.string("blake"), .string("rachit")])
        XCTAssertEqual(try ctx.value(of: users[0], attribute: "userID").0, .integer(31337))
        // Written back in the same shape: an object keyed by name.
        XCTAssertEqual(try ctx.serialize(mapping: "user", objects: users, asList: true),
                       #"{"users":{"blake":{"id":31337,"website":"http://restkit.org/"},"rachit":{"id":7,"website":"http://www.twotoasters.com/"}}}"#)
    }

    func testDynamicKeysWithRelationshipK5AndIdentityFromTheKeyF5() throws {
        let ctx = try TestFixtures.context(usersSpec)
        let users = try ctx.importJSON(mapping: "user", try TestFixtures.text("reference/DynamicKeysWithRelationship.json"))
        let address = try XCTUnwrap(ctx.relatedObject(of: users[1], relationship: "address"))
        XCTAssertEqual(try ctx.value(of: address, attribute: "city").0, .string("New York"))
        // F5: the key identifies the object; mapping it again finds the same users.
        XCTAssertEqual(try ctx.importJSON(mapping: "user", #"{"users": {"rachit": {"id": "8"}}}"#), [users[1]])
        XCTAssertEqual(try ctx.value(of: users[1], attribute: "userID").0, .integer(8))
        XCTAssertEqual(try ctx.count(of: "User"), 2)
    }

    private let houseSpec = """
        {"entities": {"Human": {"attributes": {"name": "string", "houseID": "integer"},
                                "identification": ["houseID", "name"],
                                "relationships": {"friends": {"entity": "Human", "toMany": true}}}},
         "mappings": {
           "viaParent": {"entity": "Human", "attributes": {"name": "name", "houseID": "house_id"},
                         "relationships": {"friends": {"mapping": "friendViaParent"}}},
           "friendViaParent": {"entity": "Human", "attributes": {"name": "name", "houseID": "@parent.house_id"}},
           "viaDeepParent": {"entity": "Human", "attributes": {"name": "name"},
                             "relationships": {"friends": {"keyPath": "people.friends", "mapping": "friendViaDeepParent"}}},
           "friendViaDeepParent": {"entity": "Human", "attributes": {"name": "name", "houseID": "@parent.@parent.house.house_id"}},
           "viaRoot": {"entity": "Human", "attributes": {"name": "name"},
                       "relationships": {"friends": {"mapping": "friendViaRoot"}}},
           "friendViaRoot": {"entity": "Human", "attributes": {"name": "name", "houseID": "@root.house_id"}},
           "seed": {"entity": "Human", "attributes": {"name": "name", "houseID": "house"}}}}
        """

    private func jeffs(_ ctx: MappingContext, _ houses: [Int]) throws -> [Int: ObjectID] {
        var result: [Int: ObjectID] = [:]
        for house in houses {
            result[house] = try XCTUnwrap(ctx.importJSON(mapping: "seed", #"{"name": "Jeff Arena", "house": \#(house)}"#).first)
        }
        return result
    }

    func testParentRepresentationIdentifiesChildrenM8() throws {
        let ctx = try TestFixtures.context(houseSpec)
        let jeff = try jeffs(ctx, [99999, 23456])
        let blake = try XCTUnwrap(ctx.importJSON(mapping: "viaParent",
            #"{"name": "Blake", "house_id": 23456, "friends": [{"name": "Jeff Arena"}]}"#).first)
        XCTAssertEqual(try ctx.relatedObjects(of: blake, relationship: "friends"), [jeff[23456]].compactMap { $0 })
    }

    func testDeeplyNestedParentM9() throws {
        let ctx = try TestFixtures.context(houseSpec)
        let jeff = try jeffs(ctx, [99999, 34567])
        let blake = try XCTUnwrap(ctx.importJSON(mapping: "viaDeepParent",
            #"{"name": "Blake", "house": {"house_id": 34567}, "people": {"friends": [{"name": "Jeff Arena"}]}}"#).first)
        XCTAssertEqual(try ctx.relatedObjects(of: blake, relationship: "friends"), [jeff[34567]].compactMap { $0 })
    }

    func testRootRepresentationM10() throws {
        let ctx = try TestFixtures.context(houseSpec)
        let jeff = try jeffs(ctx, [99999, 45678])
        let blake = try XCTUnwrap(ctx.importJSON(mapping: "viaRoot",
            #"{"name": "Blake", "house_id": 45678, "friends": [{"name": "Jeff Arena"}]}"#).first)
        XCTAssertEqual(try ctx.relatedObjects(of: blake, relationship: "friends"), [jeff[45678]].compactMap { $0 })
        XCTAssertEqual(try ctx.count(of: "Human"), 3)
    }

    func testAlternativesArrayStepsAndOneKeyIntoSeveralProperties() throws {
        let ctx = try TestFixtures.context("""
            {"entities": {"Item": {"attributes": {"id": "integer", "title": "string", "first": "string",
                                                  "opened": "date", "updated": "date"}}},
             "mappings": {"item": {"entity": "Item", "attributes": {
               "id": "id", "title": ["headline", "title"], "first": "tags.0",
               "opened": "modified_at", "updated": "modified_at"}}}}
            """)
        let items = try ctx.importJSON(mapping: "item", """
            [{"id": 1, "title": "t", "tags": ["a", "b"], "modified_at": 0},
             {"id": 2, "headline": "h", "title": "ignored", "tags": []}]
            """)
        XCTAssertEqual(try ctx.value(of: items[0], attribute: "title").0, .string("t"))
        XCTAssertEqual(try ctx.value(of: items[1], attribute: "title").0, .string("h"), "first present wins")
        XCTAssertEqual(try ctx.value(of: items[0], attribute: "first").0, .string("a"))
        XCTAssertNil(try ctx.value(of: items[1], attribute: "first").0)
        XCTAssertEqual(try ctx.value(of: items[0], attribute: "opened").0, try ctx.value(of: items[0], attribute: "updated").0)
    }

    func testMetadataAsARelationshipSourceM6() throws {
        let ctx = try TestFixtures.context("""
            {"entities": {"User": {"attributes": {"name": "string"}, "identification": "name",
                                   "relationships": {"friends": {"entity": "User", "toMany": true}}}},
             "mappings": {"user": {"entity": "User", "attributes": {"name": "name"},
                                   "relationships": {"friends": {"keyPath": "@metadata.custom", "mapping": "friend"}}},
                          "friend": {"entity": "User", "attributes": {"name": "name"}},
                          "loop": {"entity": "User", "attributes": {"name": "name"},
                                   "relationships": {"friends": {"keyPath": "@metadata.custom", "mapping": "loop"}}}}}
            """)
        let options = ImportOptions(metadata: .object([JSONMember("custom", .object([JSONMember("name", .string("Valerio Mazzeo"))]))]))
        let blake = try XCTUnwrap(ctx.importJSON(mapping: "user", #"{"name": "Blake Watters"}"#, options: options).first)
        let friends = try ctx.relatedObjects(of: blake, relationship: "friends")
        XCTAssertEqual(try friends.map { try ctx.value(of: $0, attribute: "name").0 }, [.string("Valerio Mazzeo")])
        XCTAssertEqual(try ctx.count(of: "User"), 2)
        // A mapping that reads itself from the metadata again and again: an error, not a crash.
        XCTAssertThrowsError(try ctx.importJSON(mapping: "loop", #"{"name": "Loop"}"#, options: options)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .depth)
        }
        XCTAssertEqual(try ctx.count(of: "User"), 2)
    }
}
