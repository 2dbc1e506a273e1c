import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Assignment policies with FastEasyMapping's semantics, and the delete
/// rules that replacing applies.
final class AssignmentPolicyTests: XCTestCase {
    private func spec(cats: String = "assign", favorite: String = "assign", catDeleteRule: String = "nullify",
                      catIdentification: String = #", "identification": "name""#) -> String {
        """
        {"entities": {
           "Human": {"attributes": {"id": "integer", "name": "string"},
                     "relationships": {"cats": {"entity": "Cat", "toMany": true, "inverse": "owner"},
                                       "favoriteCat": {"entity": "Cat", "inverse": "favoriteOf"}}},
           "Cat": {"attributes": {"name": "string"}\(catIdentification),
                   "relationships": {"owner": {"entity": "Human", "inverse": "cats"},
                                     "favoriteOf": {"entity": "Human", "inverse": "favoriteCat"},
                                     "toys": {"entity": "Toy", "toMany": true, "inverse": "cat", "deleteRule": "\(catDeleteRule)"}}},
           "Toy": {"attributes": {"name": "string"}, "identification": "name",
                   "relationships": {"cat": {"entity": "Cat", "inverse": "toys"}}}},
         "mappings": {
           "human": {"entity": "Human", "attributes": {"id": "id", "name": "name"},
                     "relationships": {"cats": {"mapping": "cat", "assignment": "\(cats)"},
                                       "favoriteCat": {"mapping": "cat", "assignment": "\(favorite)"}}},
           "cat": {"entity": "Cat", "attributes": {"name": "name"}, "relationships": {"toys": {"mapping": "toy"}}},
           "toy": {"entity": "Toy", "attributes": {"name": "name"}}}}
        """
    }

    private func names(_ ctx: MappingContext, _ objects: [ObjectID]) throws -> [String] {
        try objects.map { object in
            guard case .string(let name)? = try ctx.value(of: object, attribute: "name").0 else { return "?" }
            return name
        }
    }

    private func cats(_ ctx: MappingContext) throws -> [String] {
        let blake = try XCTUnwrap(ctx.object(of: "Human", identity: .integer(1)))
        return try names(ctx, ctx.relatedObjects(of: blake, relationship: "cats"))
    }

    func testUnionOnAToOneIsRejectedH1() {
        XCTAssertThrowsError(try TestFixtures.context(spec(favorite: "union"))) { error in
            let error = error as? MappingError
            XCTAssertEqual(error?.path, "$.mappings.human.relationships.favoriteCat.assignment")
            XCTAssertEqual(error?.message, "invalid assignment policy: cannot union a to-one relationship")
        }
        XCTAssertThrowsError(try TestFixtures.context(spec(cats: "objectMerge")))
    }

    func testUnionKeepsTheOldAndAddsTheNewH2H3H9() throws {
        let ctx = try TestFixtures.context(spec(cats: "union"))
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Jeff"}]}"#)  // H3: none before
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Zach"}, {"name": "Jeff"}]}"#)
        XCTAssertEqual(try cats(ctx), ["Jeff", "Zach"], "old first, no duplicates")
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": null}"#)
        XCTAssertEqual(try cats(ctx), ["Jeff", "Zach"], "H9: null with union is a no-op")
    }

    func testCollectionReplaceDeletesOnlyOldMinusNewH5() throws {
        let ctx = try TestFixtures.context(spec(cats: "replace"))
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Lola"}, {"name": "Roy"}]}"#)
        let roy = try XCTUnwrap(ctx.object(of: "Cat", identity: .string("Roy")))
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Roy"}, {"name": "Asia"}]}"#)
        XCTAssertEqual(try cats(ctx), ["Roy", "Asia"])
        XCTAssertNil(try ctx.object(of: "Cat", identity: .string("Lola")), "Lola is deleted")
        XCTAssertEqual(try ctx.object(of: "Cat", identity: .string("Roy")), roy, "Roy came again: never deleted")
        XCTAssertEqual(try ctx.count(of: "Cat"), 2)
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": null}"#)
        XCTAssertEqual(try ctx.count(of: "Cat"), 0, "null with replace deletes them all")
    }

    func testReplaceWithoutIdentificationKeepsOneH6() throws {
        let ctx = try TestFixtures.context(spec(cats: "replace", catIdentification: ""))
        for _ in 0..<2 {
            _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "name": "Blake", "cats": [{"name": "Roy"}]}"#)
        }
        XCTAssertEqual(try cats(ctx), ["Roy"])
        XCTAssertEqual(try ctx.count(of: "Cat"), 1, "regression #1615: the second mapping does not leave two")
    }

    func testObjectReplaceAndMergeOnToOneH7H8() throws {
        let ctx = try TestFixtures.context(spec(favorite: "replace"))
        let blake = try XCTUnwrap(ctx.importJSON(mapping: "human", #"{"id": 1, "favoriteCat": {"name": "Lola"}}"#).first)
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "favoriteCat": {"name": "Lola"}}"#)
        XCTAssertNotNil(try ctx.object(of: "Cat", identity: .string("Lola")), "the same object again is not deleted")
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "favoriteCat": {"name": "Roy"}}"#)
        XCTAssertEqual(try names(ctx, [try XCTUnwrap(ctx.relatedObject(of: blake, relationship: "favoriteCat"))]), ["Roy"])
        XCTAssertNil(try ctx.object(of: "Cat", identity: .string("Lola")), "H7: Lola is deleted")

        let merging = try TestFixtures.context(spec(favorite: "objectMerge"))
        let human = try XCTUnwrap(merging.importJSON(mapping: "human", #"{"id": 1, "favoriteCat": {"name": "Lola"}}"#).first)
        _ = try merging.importJSON(mapping: "human", #"{"id": 1, "favoriteCat": null}"#)
        XCTAssertNotNil(try merging.relatedObject(of: human, relationship: "favoriteCat"), "objectMerge: null keeps the old")
    }

    func testReplaceAppliesDeleteRules() throws {
        let cascading = try TestFixtures.context(spec(cats: "replace", catDeleteRule: "cascade"))
        _ = try cascading.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Lola", "toys": [{"name": "ball"}]}]}"#)
        _ = try cascading.importJSON(mapping: "human", #"{"id": 1, "cats": []}"#)
        XCTAssertEqual(try cascading.count(of: "Toy"), 0, "cascade deletes Lola's toys with her")

        let denying = try TestFixtures.context(spec(cats: "replace", catDeleteRule: "deny"))
        _ = try denying.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Lola", "toys": [{"name": "ball"}]}]}"#)
        let before = try denying.serialize(mapping: "human", objects: denying.objects(of: "Human"), asList: true)
        XCTAssertThrowsError(try denying.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Roy"}]}"#)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .denied)
            XCTAssertEqual((error as? MappingError)?.attribute, "Cat.toys")
        }
        XCTAssertEqual(try denying.serialize(mapping: "human", objects: denying.objects(of: "Human"), asList: true), before)
        XCTAssertEqual(try denying.count(of: "Cat"), 1, "nothing deleted, Roy not created")

        let nullifying = try TestFixtures.context(spec(cats: "replace"))
        _ = try nullifying.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Lola", "toys": [{"name": "ball"}]}]}"#)
        _ = try nullifying.importJSON(mapping: "human", #"{"id": 1, "cats": []}"#)
        let ball = try XCTUnwrap(nullifying.object(of: "Toy", identity: .string("ball")))
        XCTAssertNil(try nullifying.relatedObject(of: ball, relationship: "cat"), "nullify: the toy stays, unowned")
    }

    func testDeletedThenRolledBackObjectsKeepTheirHandles() throws {
        let ctx = try TestFixtures.context(spec(cats: "replace"))
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Lola"}]}"#)
        let lola = try XCTUnwrap(ctx.object(of: "Cat", identity: .string("Lola")))
        XCTAssertThrowsError(try ctx.importJSON(mapping: "human", #"[{"id": 1, "cats": []}, {"id": "x"}]"#))
        XCTAssertTrue(try ctx.isLive(lola), "the deletion was undone with the failed import")
        XCTAssertEqual(try ctx.object(of: "Cat", identity: .string("Lola")), lola)
        XCTAssertEqual(try cats(ctx), ["Lola"])
        _ = try ctx.importJSON(mapping: "human", #"{"id": 1, "cats": [{"name": "Roy"}]}"#)
        XCTAssertFalse(try ctx.isLive(lola))
        _ = try ctx.importJSON(mapping: "human", #"{"id": 2, "cats": [{"name": "Lola"}]}"#)  // reuses the slot
        XCTAssertFalse(try ctx.isLive(lola), "a new object in the old slot has a new generation")
        XCTAssertEqual(try ctx.count(of: "Cat"), 2)
    }
}
