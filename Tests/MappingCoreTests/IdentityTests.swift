import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Identification and uniquing, ported from RestKit's suite.
final class IdentityTests: XCTestCase {
    private let humanSpec = """
        {"entities": {
           "Human": {"attributes": {"railsID": "integer", "name": "string", "age": "integer", "createdAt": "date"},
                     "identification": ["railsID"],
                     "relationships": {"cats": {"entity": "Cat", "toMany": true, "inverse": "owner"}}},
           "Cat": {"attributes": {"railsID": "integer", "name": "string"}, "identification": "railsID",
                   "relationships": {"owner": {"entity": "Human", "inverse": "cats"}}},
           "Dated": {"attributes": {"createdAt": "date", "name": "string"}, "identification": "createdAt"},
           "Compound": {"attributes": {"railsID": "integer", "name": "string", "createdAt": "date"},
                        "identification": ["railsID", "name", "createdAt"]},
           "Anonymous": {"attributes": {"name": "string"}}},
         "mappings": {
           "human": {"entity": "Human", "attributes": {"railsID": "id", "name": "name", "age": "age"}},
           "nestedHuman": {"entity": "Human", "attributes": {"railsID": "monkey.id"}},
           "wrappedHuman": {"entity": "Human", "attributes": {"railsID": "human.id", "name": "human.name"}},
           "dated": {"entity": "Dated", "attributes": {"createdAt": "monkey.created_at", "name": "name"}},
           "compound": {"entity": "Compound", "attributes": {"railsID": "monkey.id", "name": "monkey.name",
                                                            "createdAt": "monkey.created_at"}},
           "anonymous": {"entity": "Anonymous", "attributes": {"name": "name"}},
           "session": {"entity": "Human", "rootPath": "userSessions",
                       "attributes": {"railsID": "identification", "name": "name"},
                       "relationships": {"cats": {"keyPath": "catIDs", "mapping": "catByID"}}},
           "catByID": {"entity": "Cat", "attributes": {"railsID": null}}}}
        """

    func testFindsExistingObjectsByIdentityF1F2() throws {
        let ctx = try TestFixtures.context(humanSpec)
        let stored = try ctx.importJSON(mapping: "human", #"{"id": 123, "name": "Blake"}"#)
        XCTAssertEqual(try ctx.importJSON(mapping: "human", #"{"id": 123}"#), stored)
        XCTAssertEqual(try ctx.importJSON(mapping: "nestedHuman", #"{"monkey": {"id": 123}}"#), stored)
        XCTAssertEqual(try ctx.importJSON(mapping: "human", #"{"id": "123"}"#), stored, "coerced before lookup")
        XCTAssertEqual(try ctx.count(of: "Human"), 1)
        XCTAssertEqual(try ctx.value(of: stored[0], attribute: "name").0, .string("Blake"))
    }

    func testDateIdentificationF3() throws {
        let ctx = try TestFixtures.context(humanSpec)
        let first = try ctx.importJSON(mapping: "dated", #"{"monkey": {"created_at": "2012-03-22T11:05:42Z"}, "name": "a"}"#)
        let again = try ctx.importJSON(mapping: "dated", #"{"monkey": {"created_at": "2012-03-22 11:05:42"}, "name": "b"}"#)
        XCTAssertEqual(first, again)
        XCTAssertEqual(try ctx.value(of: first[0], attribute: "name").0, .string("b"))
        XCTAssertNotNil(try ctx.object(of: "Dated", identity: .integer(1_332_414_342)), "epoch seconds find it too")
    }

    func testCompoundIdentificationF4() throws {
        let ctx = try TestFixtures.context(humanSpec)
        let stored = try ctx.importJSON(mapping: "compound",
            #"{"monkey": {"id": 12345, "name": "Reginald", "created_at": "2012-03-22T11:05:42Z"}}"#)
        let found = try ctx.importJSON(mapping: "compound",
            #"{"monkey": {"id": "12345", "name": "Reginald", "created_at": "2012-03-22T11:05:42Z"}}"#)
        XCTAssertEqual(stored, found)
        let other = try ctx.importJSON(mapping: "compound",
            #"{"monkey": {"id": 12345, "name": "Other", "created_at": "2012-03-22T11:05:42Z"}}"#)
        XCTAssertNotEqual(stored, other)
        XCTAssertEqual(try ctx.object(of: "Compound", identity: .array([.string("12345"), .string("Reginald"),
                                                                        .string("2012-03-22T11:05:42Z")])), stored[0])
        XCTAssertEqual(try ctx.object(of: "Compound", identity: .object([
            JSONMember("name", .string("Other")), JSONMember("createdAt", .integer(1_332_414_342)),
            JSONMember("railsID", .integer(12345))])), other[0])
        XCTAssertThrowsError(try ctx.object(of: "Compound", identity: .integer(12345)))
    }

    func testNullOrMissingIdentityCreatesNewObjectsF8() throws {
        let ctx = try TestFixtures.context(humanSpec)
        let a = try ctx.importJSON(mapping: "human", #"{"id": null, "name": "a"}"#)
        let b = try ctx.importJSON(mapping: "human", #"{"id": null, "name": "b"}"#)
        let c = try ctx.importJSON(mapping: "human", #"{"name": "c"}"#)
        XCTAssertEqual(Set(a + b + c).count, 3)
        XCTAssertEqual(try ctx.count(of: "Human"), 3)
        let d = try ctx.importJSON(mapping: "anonymous", #"[{"name": "x"}, {"name": "x"}]"#)
        XCTAssertNotEqual(d[0], d[1], "no identification: every representation inserts")
    }

    func testUpdatingArrayOfExistingHumansF10() throws {
        let ctx = try TestFixtures.context(humanSpec)
        let existing = try ctx.importJSON(mapping: "human", #"[{"id": 201}, {"id": 202}]"#)
        let mapped = try ctx.importJSON(mapping: "wrappedHuman", try TestFixtures.text("reference/ArrayOfHumans.json"))
        XCTAssertEqual(mapped, existing)
        XCTAssertEqual(try ctx.value(of: mapped[1], attribute: "name").0, .string("Sarah"))
    }

    func testIdentificationFromBareElementsOfAnArrayF11F12() throws {
        let ctx = try TestFixtures.context(humanSpec)
        _ = try ctx.importJSON(mapping: "catByID", #"[418, 419]"#)  // F12: two cats exist already
        let payload = #"{"userSessions": {"name": "Mr. User", "identification": 54321, "catIDs": ["418","419","431","441","457","486","504"]}}"#
        let human = try XCTUnwrap(ctx.importJSON(mapping: "session", payload).first)
        XCTAssertEqual(try ctx.value(of: human, attribute: "railsID").0, .integer(54321))
        let cats = try ctx.relatedObjects(of: human, relationship: "cats")
        XCTAssertEqual(try cats.map { try ctx.value(of: $0, attribute: "railsID").0 },
                       [418, 419, 431, 441, 457, 486, 504].map { AttributeValue.integer($0) })
        XCTAssertEqual(try ctx.count(of: "Cat"), 7)
        // F13: a second session listing the same ids does not duplicate them.
        _ = try ctx.importJSON(mapping: "session", #"{"userSessions": {"identification": 1, "catIDs": ["418", 419]}}"#)
        XCTAssertEqual(try ctx.count(of: "Cat"), 7)
        XCTAssertEqual(try ctx.relatedObjects(of: human, relationship: "cats").count, 5, "two cats moved owner")
    }

    func testObjectOfAnotherEntityWithTheSameIdentityIsAnError() throws {
        let ctx = try TestFixtures.context("""
            {"entities": {"Human": {"attributes": {"id": "integer"}}, "Child": {"parent": "Human"}},
             "mappings": {"human": {"entity": "Human", "attributes": {"id": "id"}},
                          "child": {"entity": "Child", "attributes": {"id": "id"}}}}
            """)
        let human = try ctx.importJSON(mapping: "human", #"{"id": 1}"#)
        XCTAssertThrowsError(try ctx.importJSON(mapping: "child", #"{"id": 1}"#)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .mapping)
        }
        let child = try ctx.importJSON(mapping: "child", #"{"id": 2}"#)
        XCTAssertEqual(try ctx.importJSON(mapping: "human", #"{"id": 2}"#), child, "a Child is a Human")
        XCTAssertEqual(try ctx.entityName(of: child[0]), "Child")
        XCTAssertEqual(try ctx.objects(of: "Human"), human + child)
        XCTAssertEqual(try ctx.count(of: "Child"), 1)
        XCTAssertNil(try ctx.object(of: "Child", identity: .integer(1)))
    }
}
