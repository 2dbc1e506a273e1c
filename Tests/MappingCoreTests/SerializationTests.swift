import XCTest
@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Serialization and parameterization, and remaining
/// relationship cases (G11, H8, K7, E10).
final class SerializationTests: XCTestCase {
    private let spec = """
        {"entities": {
           "Thing": {"attributes": {"key1": "string", "key2": "string", "date": "date", "flag": "boolean",
                                    "website": "string", "p1": "string", "p2": "string"},
                     "relationships": {"hasMany": {"entity": "Part", "toMany": true}, "one": {"entity": "Part"}}},
           "Part": {"attributes": {"date": "date", "name": "string"}}},
         "mappings": {
           "form": {"entity": "Thing", "attributes": {"key1": "key1-form-name", "key2": "key2-form-name",
                                                       "date": {"keyPath": "date-form-name", "transformer": "date:MM/dd/yyyy"}}},
           "json": {"entity": "Thing", "attributes": {"key1": "key1-form-name", "date": "date-form-name", "flag": "flag"},
                    "relationships": {"hasMany": {"mapping": "part"}, "one": {"mapping": "part"}}},
           "wrapped": {"entity": "Thing", "rootPath": "stuff", "attributes": {"key1": "key1"}},
           "nested": {"entity": "Thing", "attributes": {"key1": "user.name", "key2": "user.job"}},
           "deep": {"entity": "Thing", "attributes": {"key1": "user.anotherKeyPath.name", "key2": "user.anotherKeyPath.another.job"}},
           "positional": {"entity": "Thing", "attributes": {"p1": "values.0", "p2": "values.1"}},
           "composite": {"entity": "Thing", "attributes": {"p1": ["actualProperty1", "actualProperty2"]}},
           "part": {"entity": "Part", "attributes": {"date": "date", "name": "name"}}}}
        """

    private func thing(_ ctx: MappingContext, _ mapping: String, _ json: String) throws -> ObjectID {
        try XCTUnwrap(ctx.importJSON(mapping: mapping, json).first)
    }

    func testFormEncodingN1N3N10N11N12N13N14N15() throws {
        let ctx = try TestFixtures.context(spec)
        let object = try thing(ctx, "form", #"{"key1-form-name": "value1", "key2-form-name": "value2"}"#)
        XCTAssertEqual(try ctx.serialize(mapping: "form", objects: [object], asList: false, options: .formEncoded),
                       "key1-form-name=value1&key2-form-name=value2")  // N1
        let dated = try thing(ctx, "form", #"{"key1-form-name": "value1", "date-form-name": "01/01/1970"}"#)
        XCTAssertEqual(try ctx.serialize(mapping: "form", objects: [dated], asList: false, options: .formEncoded),
                       "date-form-name=01%2F01%2F1970&key1-form-name=value1", "N3: keys sorted; '/' escaped as in N11")
        XCTAssertEqual(FormEncoder.encode(.object([JSONMember("utf8", .string("¡No ser niño, ser búfalo…!"))])),
                       "utf8=%C2%A1No%20ser%20ni%C3%B1o%2C%20ser%20b%C3%BAfalo%E2%80%A6%21")  // N10
        XCTAssertEqual(FormEncoder.encode(.object([JSONMember("url", .string(#"http://some.server.com/path/action?subject="That thing I sent"&email="me@me.com""#))])),
                       "url=http%3A%2F%2Fsome.server.com%2Fpath%2Faction%3Fsubject%3D%22That%20thing%20I%20sent%22%26email%3D%22me%40me.com%22")  // N11
        XCTAssertEqual(FormEncoder.encode(.object([JSONMember("anArray", .array([.string("item1"), .string("item2")]))])),
                       "anArray[]=item1&anArray[]=item2")  // N12
        XCTAssertEqual(FormEncoder.encode(.object([JSONMember("aDictionary", .object([JSONMember("key1", .string("value1"))]))])),
                       "aDictionary[key1]=value1")  // N13
        XCTAssertEqual(FormEncoder.encode(.object([JSONMember("root", .array([
            .object([JSONMember("b", .string("y")), JSONMember("a", .string("x"))]),
            .object([JSONMember("a", .string("1")), JSONMember("b", .string("2"))])]))])),
                       "root[][a]=x&root[][b]=y&root[][a]=1&root[][b]=2")  // N14
        XCTAssertEqual(FormEncoder.encode(.object([JSONMember("recursiveArray", .array([.array([.array([.string("item1"), .string("item2")])])]))])),
                       "recursiveArray[][][]=item1&recursiveArray[][][]=item2")  // N15
        XCTAssertEqual(FormEncoder.encode(.object([JSONMember("gone", .null), JSONMember("n", .integer(3))])), "gone&n=3")
    }

    func testJSONSerializationN2N4N5N6N7N8N9() throws {
        let ctx = try TestFixtures.context(spec)
        let object = try thing(ctx, "json", #"{"key1-form-name": "value1", "date-form-name": 0, "flag": false, "hasMany": [{"date": 0}]}"#)
        XCTAssertEqual(try ctx.serialize(mapping: "json", objects: [object], asList: false),
                       #"{"key1-form-name":"value1","date-form-name":"1970-01-01T00:00:00.000Z","flag":false,"hasMany":[{"date":"1970-01-01T00:00:00.000Z"}]}"#)
        XCTAssertEqual(try ctx.serialize(mapping: "json", objects: [object], asList: false, options: .includeNulls),
                       #"{"key1-form-name":"value1","date-form-name":"1970-01-01T00:00:00.000Z","flag":false,"hasMany":[{"date":"1970-01-01T00:00:00.000Z","name":null}],"one":null}"#)  // N7, J15
        let empty = try XCTUnwrap(ctx.importJSON(mapping: "wrapped", #"{"stuff": {"key1": null}}"#).first)
        XCTAssertEqual(try ctx.serialize(mapping: "wrapped", objects: [empty], asList: false), #"{"stuff":{}}"#)  // N5, N9
        XCTAssertEqual(try ctx.serialize(mapping: "wrapped", objects: [empty], asList: false, options: .omitRootPath), "{}")
        XCTAssertThrowsError(try ctx.serialize(mapping: "json", objects: [object], asList: true, options: .formEncoded))
    }

    func testNestedKeyPathsAreRebuiltK8AndPositionsBecomeArraysK12() throws {
        let ctx = try TestFixtures.context(spec)
        let nested = try thing(ctx, "nested", #"{"user": {"name": "Blake Watters", "job": "Hacker"}}"#)
        XCTAssertEqual(try ctx.serialize(mapping: "nested", objects: [nested], asList: false),
                       #"{"user":{"name":"Blake Watters","job":"Hacker"}}"#)
        XCTAssertEqual(try ctx.serialize(mapping: "deep", objects: [nested], asList: false),
                       #"{"user":{"anotherKeyPath":{"name":"Blake Watters","another":{"job":"Hacker"}}}}"#)
        let positional = try thing(ctx, "positional", #"{"values": ["testValue1", "testValue2"]}"#)
        XCTAssertEqual(try ctx.serialize(mapping: "positional", objects: [positional], asList: false),
                       #"{"values":["testValue1","testValue2"]}"#)
        // N19: a composite mapping writes to its first key path.
        let composite = try thing(ctx, "composite", #"{"actualProperty2": "testValue1"}"#)
        XCTAssertEqual(try ctx.serialize(mapping: "composite", objects: [composite], asList: false), #"{"actualProperty1":"testValue1"}"#)
    }

    func testRelationshipFromTheParentsOwnRepresentationK7() throws {
        let ctx = try TestFixtures.context("""
            {"entities": {"User": {"attributes": {"name": "string"}, "relationships": {"coordinate": {"entity": "Coordinate"}}},
                          "Coordinate": {"attributes": {"latitude": "double", "longitude": "double"}}},
             "mappings": {"user": {"entity": "User", "attributes": {"name": "name"},
                                   "relationships": {"coordinate": {"keyPath": "@self", "mapping": "coordinate"}}},
                          "coordinate": {"entity": "Coordinate", "attributes": {"latitude": "latitude", "longitude": "longitude"}}}}
            """)
        let user = try XCTUnwrap(ctx.importJSON(mapping: "user", #"{"name": "Blake", "latitude": 125.55, "longitude": 200.5}"#).first)
        let coordinate = try XCTUnwrap(ctx.relatedObject(of: user, relationship: "coordinate"))
        XCTAssertEqual(try ctx.value(of: coordinate, attribute: "latitude").0, .double(125.55))
        XCTAssertEqual(try ctx.serialize(mapping: "user", objects: [user], asList: false),
                       #"{"name":"Blake","latitude":125.55,"longitude":200.5}"#)
    }

    func testKeyPathConnectionsAcrossToManyG11AndInferenceOffE10() throws {
        let ctx = try TestFixtures.context("""
            {"entities": {
               "Person": {"attributes": {"name": "string"}, "identification": "name",
                          "relationships": {"housesResidedAt": {"entity": "House", "toMany": true, "ordered": true},
                                            "friends": {"entity": "Person", "toMany": true, "ordered": true}}},
               "House": {"attributes": {"id": "integer"}, "identification": null,
                         "relationships": {"ownersInChronologicalOrder": {"entity": "Person", "toMany": true, "ordered": true}}}},
             "mappings": {"person": {"entity": "Person", "attributes": {"name": "name"},
                                     "relationships": {"housesResidedAt": {"mapping": "house"}},
                                     "connections": {"friends": {"keyPath": "housesResidedAt.ownersInChronologicalOrder"}}},
                          "house": {"entity": "House", "attributes": {"id": "id"},
                                    "relationships": {"ownersInChronologicalOrder": {"mapping": "owner"}}},
                          "owner": {"entity": "Person", "attributes": {"name": "name"}}}}
            """)
        let person = try XCTUnwrap(ctx.importJSON(mapping: "person", """
            {"name": "Blake", "housesResidedAt": [
              {"id": 1, "ownersInChronologicalOrder": [{"name": "h1"}, {"name": "h2"}]},
              {"id": 1, "ownersInChronologicalOrder": [{"name": "h3"}, {"name": "h4"}]}]}
            """).first)
        let friends = try ctx.relatedObjects(of: person, relationship: "friends")
        XCTAssertEqual(try friends.map { try ctx.value(of: $0, attribute: "name").0 }, ["h1", "h2", "h3", "h4"].map(AttributeValue.string))
        XCTAssertEqual(try ctx.count(of: "House"), 2, "E10: identification null: the two houses with id 1 stay two")
    }

    func testReplaceWithMissingRelationshipsNullifiedDeletesH8AndUnionKeepsH9() throws {
        func context(_ policy: String) throws -> MappingContext {
            try TestFixtures.context("""
                {"entities": {"Human": {"attributes": {"name": "string"}, "identification": "name",
                                        "relationships": {"favoriteCat": {"entity": "Cat"}, "cats": {"entity": "Cat", "toMany": true}}},
                              "Cat": {"attributes": {"name": "string"}, "identification": "name"}},
                 "mappings": {"human": {"entity": "Human", "missingRelationships": "nullify", "attributes": {"name": "name"},
                                        "relationships": {"\(policy == "union" ? "cats" : "favoriteCat")": {"mapping": "cat", "assignment": "\(policy)"}}},
                              "cat": {"entity": "Cat", "attributes": {"name": "name"}}}}
                """)
        }
        let replacing = try context("replace")
        _ = try replacing.importJSON(mapping: "human", #"{"name": "Blake", "favoriteCat": {"name": "Lola"}}"#)
        _ = try replacing.importJSON(mapping: "human", #"{"name": "Blake"}"#)
        XCTAssertEqual(try replacing.count(of: "Cat"), 0, "H8: Lola is deleted")
        let uniting = try context("union")
        let blake = try XCTUnwrap(uniting.importJSON(mapping: "human", #"{"name": "Blake", "cats": [{"name": "Lola"}]}"#).first)
        _ = try uniting.importJSON(mapping: "human", #"{"name": "Blake"}"#)
        XCTAssertEqual(try uniting.relatedObjects(of: blake, relationship: "cats").count, 1, "H9: union keeps Lola")
    }

    func testDotNetDates() throws {
        let ctx = try TestFixtures.context(spec)
        let part = try XCTUnwrap(ctx.importJSON(mapping: "part", #"{"date": "/Date(1112715000000-0500)/"}"#).first)
        XCTAssertEqual(try ctx.value(of: part, attribute: "date").0, .date(Timestamp(microseconds: 1_112_715_000_000_000)))
    }

    /// A `json` attribute is written as the text it is kept as; a relationship written at a key path
    /// inside it (GitHub's `payload.issue`) goes into that object, and the result is the same in
    /// every form: compact, pretty, form-encoded and as a tree.
    func testJSONAttributesAreWrittenAsKeptAndTakeMembersWrittenInsideThem() throws {
        let spec = """
            {"entities": {
               "Event": {"attributes": {"id": "integer", "payload": "json"}, "identification": "id",
                         "relationships": {"issue": {"entity": "Issue"}}},
               "Issue": {"attributes": {"id": "integer", "title": "string"}, "identification": "id"}},
             "mappings": {
               "event": {"entity": "Event", "attributes": {"id": "id", "payload": "payload"},
                         "relationships": {"issue": {"keyPath": "payload.issue", "mapping": "issue"}}},
               "issue": {"entity": "Issue", "attributes": {"id": "id", "title": "name"}}}}
            """
        let ctx = try TestFixtures.context(spec)
        let payload = #"{"id": 1, "payload": {"action": "op\"ened", "issue": {"id": 7, "name": "t", "extra": [1, {"x": null}]}, "n": [1.5, -0.0, 12345678901234567890.5]}}"#
        let event = try XCTUnwrap(ctx.importJSON(mapping: "event", payload).first)
        let compact = try ctx.serialize(mapping: "event", objects: [event], asList: false)
        // The relationship's representation takes the member's place (what was there is not merged).
        XCTAssertEqual(compact, #"{"id":1,"payload":{"action":"op\"ened","issue":{"id":7,"name":"t"},"n":[1.5,-0.0,12345678901234567890.5]}}"#)
        let plain = #"{"id": 2, "payload": [true, {"a": "b"}]}"#
        let other = try XCTUnwrap(ctx.importJSON(mapping: "event", plain).first)
        XCTAssertEqual(try ctx.serialize(mapping: "event", objects: [other], asList: false), #"{"id":2,"payload":[true,{"a":"b"}]}"#)
        let tree = try ctx.serializedDocument(mapping: "event", objects: [event], asList: false, options: [])
        XCTAssertEqual(tree.text(), compact)
        XCTAssertEqual(try ctx.serialize(mapping: "event", objects: [event], asList: false, options: .pretty), tree.text(pretty: true))
        XCTAssertEqual(try ctx.serialize(mapping: "event", objects: [other], asList: false, options: .formEncoded),
                       "id=2&payload[]=true&payload[][a]=b")
    }
}
