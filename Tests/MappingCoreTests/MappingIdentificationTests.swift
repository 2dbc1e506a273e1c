import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Identification options of a mapping: its own identification, identificationPredicate (F6),
/// modificationAttribute (F15), and deletionPredicate tombstones (P7).
final class MappingIdentificationTests: XCTestCase {
    private let spec = """
        {"entities": {"Human": {"attributes": {"railsID": "integer", "name": "string", "age": "integer",
                                               "email": "string", "updatedAt": "date", "sex": "string",
                                               "version": "integer", "nick": "string"}}},
         "mappings": {
           "seed": {"entity": "Human", "attributes": {"railsID": "id", "name": "name", "age": "age", "email": "email"}},
           "young": {"entity": "Human", "identification": "railsID", "identificationPredicate": "age < 30",
                     "attributes": {"railsID": "id", "nick": "nick"}},
           "byEmail": {"entity": "Human", "identification": ["email"], "attributes": {"email": "email", "name": "name"}},
           "dated": {"entity": "Human", "identification": "railsID", "modificationAttribute": "updatedAt",
                     "attributes": {"railsID": "id", "name": "name", "updatedAt": "updated_at"}},
           "versioned": {"entity": "Human", "identification": "railsID", "modificationAttribute": "nick",
                         "attributes": {"railsID": "id", "nick": "nick", "name": "name"}},
           "tombstones": {"entity": "Human", "identification": "railsID", "deletionPredicate": "sex == 'female'",
                          "attributes": {"railsID": "id", "name": "name", "sex": "sex"}}}}
        """

    func testIdentificationPredicateChoosesAmongCandidatesF6() throws {
        let ctx = try TestFixtures.context(spec)
        let people = try ctx.importJSON(mapping: "seed", #"[{"id": 123, "name": "Blake", "age": 30}, {"id": 123, "name": "Colin", "age": 28}]"#)
        let found = try ctx.importJSON(mapping: "young", #"{"id": 123, "nick": "C"}"#)
        XCTAssertEqual(found, [people[1]], "Colin (28) rather than Blake (30)")
        let created = try ctx.importJSON(mapping: "young", #"{"id": 999, "nick": "N"}"#)
        XCTAssertEqual(try ctx.count(of: "Human"), 3)
        let again = try ctx.importJSON(mapping: "young", #"{"id": 999, "nick": "N"}"#)
        XCTAssertNotEqual(again, created, "its age is nil, so it never matches age < 30: a new object each time")
        XCTAssertEqual(try ctx.count(of: "Human"), 4)
    }

    func testAMappingsOwnIdentification() throws {
        let ctx = try TestFixtures.context(spec)
        let first = try ctx.importJSON(mapping: "byEmail", #"{"email": "a@b.c", "name": "A"}"#)
        XCTAssertEqual(try ctx.importJSON(mapping: "byEmail", #"[{"email": "a@b.c", "name": "A2"}, {"email": "x@y.z"}]"#).first, first[0])
        XCTAssertEqual(try ctx.value(of: first[0], attribute: "name").0, .string("A2"))
        XCTAssertEqual(try ctx.count(of: "Human"), 2)
    }

    func testModificationAttributeSkipsUnchangedObjectsF15() throws {
        let ctx = try TestFixtures.context(spec)
        let blake = try XCTUnwrap(ctx.importJSON(mapping: "dated", #"{"id": 1, "name": "Blake", "updated_at": "2020-01-02"}"#).first)
        XCTAssertEqual(try ctx.importJSON(mapping: "dated", #"{"id": 1, "name": "Older", "updated_at": "2020-01-01"}"#), [blake])
        XCTAssertEqual(try ctx.value(of: blake, attribute: "name").0, .string("Blake"), "older: skipped")
        _ = try ctx.importJSON(mapping: "dated", #"{"id": 1, "name": "Same", "updated_at": "2020-01-02"}"#)
        XCTAssertEqual(try ctx.value(of: blake, attribute: "name").0, .string("Blake"), "equal: skipped")
        _ = try ctx.importJSON(mapping: "dated", #"{"id": 1, "name": "Newer", "updated_at": "2020-01-03"}"#)
        XCTAssertEqual(try ctx.value(of: blake, attribute: "name").0, .string("Newer"))
        _ = try ctx.importJSON(mapping: "versioned", #"{"id": 1, "nick": "v1", "name": "String"}"#)
        _ = try ctx.importJSON(mapping: "versioned", #"{"id": 1, "nick": "v1", "name": "Skipped"}"#)
        XCTAssertEqual(try ctx.value(of: blake, attribute: "name").0, .string("String"), "strings: equal skips")
    }

    func testDeletionPredicateTombstonesP7() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "tombstones", #"[{"id": 1, "name": "Stays", "sex": "male"}, {"id": 2, "name": "Whatever", "sex": "female"}]"#)
        XCTAssertEqual(try ctx.count(of: "Human"), 1)
        XCTAssertEqual(try ctx.fetch(FetchRequest(entity: "Human", predicate: "railsID == 2")), [])
    }
}
