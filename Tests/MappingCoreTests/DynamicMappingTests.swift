import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Dynamic mappings: a mapping chosen per representation by a value, by the JSON
/// type of a value, or a default; declined representations are skipped, except at the top.
final class DynamicMappingTests: XCTestCase {
    private let spec = """
        {"entities": {
           "Person": {"attributes": {"name": "string"},
                      "relationships": {"friends": {"entity": "Person", "toMany": true, "ordered": true}}},
           "Boy": {"parent": "Person"}, "Girl": {"parent": "Person"},
           "Parent": {"attributes": {"id": "integer", "name": "string", "age": "integer"}},
           "Child": {"parent": "Parent"}},
         "mappings": {
           "boy": {"entity": "Boy", "attributes": {"name": "name"},
                   "relationships": {"friends": {"mapping": "person"}}},
           "girl": {"entity": "Girl", "attributes": {"name": "name"},
                    "relationships": {"friends": {"mapping": "person"}}},
           "person": {"dynamic": {"keyPath": "type", "cases": {"Boy": "boy", "Girl": "girl"}}},
           "byNumber": {"dynamic": {"keyPath": "numeric_type", "cases": {"0": "girl", "1": "boy"}}},
           "byClass": {"dynamic": {"keyPath": "type", "byType": {"string": "girl", "number": "boy"}}},
           "byNumericClass": {"dynamic": {"keyPath": "numeric_type", "byType": {"string": "girl", "number": "boy"}}},
           "onlyBoys": {"dynamic": {"keyPath": "type", "cases": {"Boy": "boy", "Girl": null}}},
           "byPredicate": {"dynamic": {"matchers": [{"predicate": "numeric_type = 0", "mapping": "girl"},
                                                    {"predicate": "numeric_type = 1", "mapping": "boy"}]}},
           "firstMatchWins": {"dynamic": {"matchers": [{"predicate": "numeric_type = 0", "mapping": "girl"},
                                                       {"predicate": "numeric_type = 0", "mapping": "boy"},
                                                       {"predicate": "name BEGINSWITH[c] 'blake'", "mapping": null}],
                                          "default": "girl"}},
           "parent": {"entity": "Parent", "attributes": {"id": "id", "name": "name", "age": "age"}},
           "child": {"entity": "Child", "attributes": {"id": "id", "name": "name"}},
           "family": {"dynamic": {"keyPath": "type", "cases": {"Parent": "parent"}, "default": "child"}}}}
        """

    private func entity(_ ctx: MappingContext, _ json: String, _ mapping: String) throws -> String {
        try ctx.entityName(of: XCTUnwrap(ctx.importJSON(mapping: mapping, json).first))
    }

    func testChoosesByValueL1L2L4() throws {
        let ctx = try TestFixtures.context(spec)
        XCTAssertEqual(try entity(ctx, try TestFixtures.text("reference/Dynamic/girl.json"), "person"), "Girl")
        XCTAssertEqual(try entity(ctx, try TestFixtures.text("reference/Dynamic/boy.json"), "person"), "Boy")
        XCTAssertEqual(try entity(ctx, #"{"name": "S", "numeric_type": 0}"#, "byNumber"), "Girl")
        XCTAssertEqual(try entity(ctx, #"{"name": "B", "numeric_type": 1}"#, "byNumber"), "Boy")
    }

    func testChoosesByTypeL3() throws {
        let ctx = try TestFixtures.context(spec)
        XCTAssertEqual(try entity(ctx, try TestFixtures.text("reference/Dynamic/girl.json"), "byClass"), "Girl")
        XCTAssertEqual(try entity(ctx, try TestFixtures.text("reference/Dynamic/boy.json"), "byNumericClass"), "Boy")
    }

    func testPredicateMatchersL5L6() throws {
        let ctx = try TestFixtures.context(spec)
        XCTAssertEqual(try entity(ctx, try TestFixtures.text("reference/Dynamic/girl.json"), "byPredicate"), "Girl")
        XCTAssertEqual(try entity(ctx, try TestFixtures.text("reference/Dynamic/boy.json"), "byPredicate"), "Boy")
        // L6: matchers are tried in order (a declarative list has no re-registration; order is the list's).
        XCTAssertEqual(try entity(ctx, #"{"name": "S", "numeric_type": 0}"#, "firstMatchWins"), "Girl")
        XCTAssertEqual(try ctx.importJSON(mapping: "firstMatchWins", #"[{"name": "Blake Watters", "numeric_type": 1}]"#), [])
        XCTAssertThrowsError(try TestFixtures.context(spec.replacingOccurrences(of: "numeric_type = 1", with: "numeric_type =")))
    }

    func testEntityMappingsWithADefaultL7() throws {
        let ctx = try TestFixtures.context(spec)
        XCTAssertEqual(try entity(ctx, try TestFixtures.text("reference/Dynamic/parent.json"), "family"), "Parent")
        XCTAssertEqual(try entity(ctx, try TestFixtures.text("reference/Dynamic/child.json"), "family"), "Child")
    }

    func testCollectionsAndRelationshipsL8() throws {
        let ctx = try TestFixtures.context(spec)
        let mixed = try ctx.importJSON(mapping: "person", try TestFixtures.text("reference/Dynamic/mixed.json"))
        XCTAssertEqual(try mixed.map(ctx.entityName), ["Boy", "Girl"])
        XCTAssertEqual(try ctx.value(of: mixed[0], attribute: "name").0, .string("Blake Watters"))
        let blake = try XCTUnwrap(ctx.importJSON(mapping: "person", try TestFixtures.text("reference/Dynamic/friends.json")).first)
        let friends = try ctx.relatedObjects(of: blake, relationship: "friends")
        XCTAssertEqual(try friends.map(ctx.entityName), ["Boy", "Girl"])
        XCTAssertEqual(try friends.map { try ctx.value(of: $0, attribute: "name").0 }, [.string("John Doe"), .string("Jane Doe")])
        // Written back through the dynamic mapping: each object through the mapping of its entity.
        XCTAssertEqual(try ctx.serialize(mapping: "person", objects: friends, asList: true),
                       #"[{"name":"John Doe","friends":[]},{"name":"Jane Doe","friends":[]}]"#)
    }

    func testDeclinedRepresentationsAreSkippedInCollectionsAndFailAtTheTopL8() throws {
        let ctx = try TestFixtures.context(spec)
        let boys = try ctx.importJSON(mapping: "onlyBoys", try TestFixtures.text("reference/Dynamic/mixed.json"))
        XCTAssertEqual(try boys.map(ctx.entityName), ["Boy"])
        XCTAssertEqual(try ctx.count(of: "Girl"), 0)
        XCTAssertThrowsError(try ctx.importJSON(mapping: "onlyBoys", try TestFixtures.text("reference/Dynamic/girl.json"))) { error in
            XCTAssertEqual((error as? MappingError)?.code, .mapping)
        }
        XCTAssertThrowsError(try ctx.importJSON(mapping: "person", #"{"name": "X", "type": "Dragon"}"#))
        XCTAssertEqual(try ctx.count(of: "Person"), 1)
    }

    func testCasesMustMapTheRelationshipsEntity() {
        XCTAssertThrowsError(try TestFixtures.context("""
            {"entities": {"A": {"relationships": {"b": {"entity": "B"}}}, "B": {}, "C": {}},
             "mappings": {"a": {"entity": "A", "relationships": {"b": {"mapping": "d"}}},
                          "d": {"dynamic": {"keyPath": "t", "cases": {"b": "b", "c": "c"}}},
                          "b": {"entity": "B"}, "c": {"entity": "C"}}}
            """)) { error in
            XCTAssertEqual((error as? MappingError)?.path, "$.mappings.a.relationships.b.mapping")
        }
    }
}
