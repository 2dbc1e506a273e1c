import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Nested relationships with the assign policy, and inverses kept in step for one-to-one,
/// one-to-many and many-to-many.
final class RelationshipTests: XCTestCase {
    private let spec = """
        {"entities": {
           "Human": {"attributes": {"id": "integer", "name": "string"},
                     "relationships": {
                       "cats": {"entity": "Cat", "toMany": true, "inverse": "owner"},
                       "favoriteCat": {"entity": "Cat", "inverse": "favoriteOf"},
                       "spouse": {"entity": "Human", "inverse": "spouse"},
                       "friends": {"entity": "Human", "toMany": true, "inverse": "friends"},
                       "clubs": {"entity": "Club", "toMany": true, "inverse": "members"}}},
           "Cat": {"attributes": {"id": "integer", "name": "string"},
                   "relationships": {"owner": {"entity": "Human", "inverse": "cats"},
                                     "favoriteOf": {"entity": "Human", "inverse": "favoriteCat"}}},
           "Club": {"attributes": {"id": "integer"},
                    "relationships": {"members": {"entity": "Human", "toMany": true, "inverse": "clubs"}}},
           "Node": {"attributes": {"pk": "integer"}, "identification": "pk",
                    "relationships": {"child": {"entity": "Node"}}}},
         "mappings": {
           "human": {"entity": "Human", "attributes": {"id": "id", "name": "name"},
                     "relationships": {"cats": {"mapping": "cat"}, "favoriteCat": {"keyPath": "favorite_cat", "mapping": "cat"},
                                       "spouse": {"mapping": "human"}, "friends": {"mapping": "human"},
                                       "clubs": {"mapping": "club"}}},
           "cat": {"entity": "Cat", "attributes": {"id": "id", "name": "name"}},
           "club": {"entity": "Club", "attributes": {"id": "id"}},
           "node": {"entity": "Node", "attributes": {"pk": "pk"}, "relationships": {"child": {"mapping": "node"}}}}}
        """

    private func human(_ ctx: MappingContext, _ id: Int64) throws -> ObjectID {
        try XCTUnwrap(ctx.object(of: "Human", identity: .integer(id)))
    }

    private func cat(_ ctx: MappingContext, _ id: Int64) throws -> ObjectID {
        try XCTUnwrap(ctx.object(of: "Cat", identity: .integer(id)))
    }

    func testOneToManyInverseFollowsMoves() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "human", #"[{"id": 1, "cats": [{"id": 10}, {"id": 11}]}, {"id": 2, "cats": [{"id": 11}]}]"#)
        XCTAssertEqual(try ctx.relatedObjects(of: human(ctx, 1), relationship: "cats"), [try cat(ctx, 10)])
        XCTAssertEqual(try ctx.relatedObject(of: cat(ctx, 11), relationship: "owner"), try human(ctx, 2))
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": []}"#)  // H10: [] disassociates
        XCTAssertNil(try ctx.relatedObject(of: cat(ctx, 10), relationship: "owner"))
        XCTAssertEqual(try ctx.count(of: "Cat"), 2, "assign never deletes")
        _ = try ctx.importJSON(mapping: "human", #"{"id": 2, "cats": null}"#)  // J9: null empties a to-many
        XCTAssertEqual(try ctx.relatedObjects(of: human(ctx, 2), relationship: "cats"), [])
        XCTAssertNil(try ctx.relatedObject(of: cat(ctx, 11), relationship: "owner"))
        _ = try ctx.importJSON(mapping: "human", #"{"id": 2, "cats": {"id": 12}}"#)  // a single object into a to-many
        XCTAssertEqual(try ctx.relatedObjects(of: human(ctx, 2), relationship: "cats"), [try cat(ctx, 12)])
    }

    func testOneToOneStealsFromThePreviousHolder() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "human", #"[{"id": 1, "favorite_cat": {"id": 10}}, {"id": 2, "favorite_cat": {"id": 10}}]"#)
        XCTAssertNil(try ctx.relatedObject(of: human(ctx, 1), relationship: "favoriteCat"))
        XCTAssertEqual(try ctx.relatedObject(of: cat(ctx, 10), relationship: "favoriteOf"), try human(ctx, 2))
        _ = try ctx.importJSON(mapping: "human", #"{"id": 2, "favorite_cat": null}"#)  // H10: null => nil
        XCTAssertNil(try ctx.relatedObject(of: cat(ctx, 10), relationship: "favoriteOf"))
        // A self-inverse to-one: marrying 3 to 4 and then 4 to 5 leaves 3 single.
        _ = try ctx.importJSON(mapping: "human", #"[{"id": 3, "spouse": {"id": 4}}, {"id": 4, "spouse": {"id": 5}}]"#)
        XCTAssertNil(try ctx.relatedObject(of: human(ctx, 3), relationship: "spouse"))
        XCTAssertEqual(try ctx.relatedObject(of: human(ctx, 5), relationship: "spouse"), try human(ctx, 4))
    }

    func testManyToManyInverses() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "human", #"[{"id": 1, "clubs": [{"id": 7}, {"id": 8}]}, {"id": 2, "clubs": [{"id": 8}]}]"#)
        let club8 = try XCTUnwrap(ctx.object(of: "Club", identity: .integer(8)))
        XCTAssertEqual(try ctx.relatedObjects(of: club8, relationship: "members"), [try human(ctx, 1), try human(ctx, 2)])
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "clubs": [{"id": 7}]}"#)
        XCTAssertEqual(try ctx.relatedObjects(of: club8, relationship: "members"), [try human(ctx, 2)])
        // A symmetric relationship: befriending 1 and 2 makes each the other's friend, once.
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "friends": [{"id": 2}, {"id": 2}, {"id": 1}]}"#)
        XCTAssertEqual(try ctx.relatedObjects(of: human(ctx, 2), relationship: "friends"), [try human(ctx, 1)])
        XCTAssertEqual(try ctx.relatedObjects(of: human(ctx, 1), relationship: "friends"), [try human(ctx, 2), try human(ctx, 1)])
    }

    func testRecursiveCyclicPayloadResolvesToTheSameObjects() throws {
        let ctx = try TestFixtures.context(spec)
        let top = try ctx.importJSON(mapping: "node", #"{"pk": 1, "child": {"pk": 2, "child": {"pk": 1}}}"#)
        let child = try XCTUnwrap(ctx.relatedObject(of: top[0], relationship: "child"))
        XCTAssertEqual(try ctx.relatedObject(of: child, relationship: "child"), top[0])
        XCTAssertEqual(try ctx.count(of: "Node"), 2)
        // Serializing a cycle stops where an object would repeat on its own branch.
        XCTAssertEqual(try ctx.serialize(mapping: "node", objects: top, asList: false), #"{"pk":1,"child":{"pk":2}}"#)
    }

    func testLargeToManyKeepsOrderAndStaysUnique() throws {
        let ctx = try TestFixtures.context(spec)
        let cats = (0..<2_000).map { #"{"id": \#($0 % 1_500)}"# }.joined(separator: ",")
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": [\#(cats)]}"#)
        let related = try ctx.relatedObjects(of: human(ctx, 1), relationship: "cats")
        XCTAssertEqual(related.count, 1_500)
        XCTAssertEqual(try ctx.value(of: related[1_499], attribute: "id").0, .integer(1_499))
    }
}
