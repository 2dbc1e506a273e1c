import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Connections, run after the whole payload is mapped.
final class ConnectionTests: XCTestCase {
    private let spec = """
        {"entities": {
           "Human": {"attributes": {"name": "string", "railsID": "integer", "sex": "string",
                                    "favoriteCatID": "integer", "catIDs": "json", "friendIDs": "json"},
                     "identification": "name",
                     "relationships": {
                       "favoriteCat": {"entity": "Cat", "inverse": "favoriteOfHumans"},
                       "cats": {"entity": "Cat", "toMany": true},
                       "residence": {"entity": "House", "inverse": "residents"},
                       "landlord": {"entity": "Human"},
                       "roommates": {"entity": "Human", "toMany": true},
                       "friends": {"entity": "Human", "toMany": true}}},
           "Child": {"parent": "Human"},
           "Cat": {"attributes": {"name": "string", "railsID": "integer", "sex": "string", "birthYear": "integer"},
                   "identification": "railsID",
                   "relationships": {"favoriteOfHumans": {"entity": "Human", "toMany": true, "inverse": "favoriteCat"}}},
           "House": {"attributes": {"address": "string"},
                     "relationships": {"owner": {"entity": "Human"},
                                       "residents": {"entity": "Human", "toMany": true, "inverse": "residence"}}}},
         "mappings": {
           "cat": {"entity": "Cat", "attributes": {"name": "name", "railsID": "railsID", "sex": "sex", "birthYear": "birthYear"}},
           "favorite": {"entity": "Human", "attributes": {"name": "name", "favoriteCatID": "favoriteCatID"},
                        "connections": {"favoriteCat": {"attributes": {"favoriteCatID": "railsID"}}}},
           "bySex": {"entity": "Human", "attributes": {"name": "name", "sex": "sex"},
                     "connections": {"cats": {"attributes": "sex"}}},
           "bySexAndName": {"entity": "Human", "attributes": {"name": "name", "sex": "sex", "railsID": "railsID"},
                            "connections": {"cats": {"attributes": ["sex", "railsID"]}}},
           "byIDs": {"entity": "Human", "attributes": {"name": "name", "catIDs": "catIDs"},
                     "connections": {"cats": {"attributes": {"catIDs": "railsID"}}}},
           "byIDsCreating": {"entity": "Human", "attributes": {"name": "name", "catIDs": "catIDs"},
                             "connections": {"cats": {"attributes": {"catIDs": "railsID"}, "createMissing": true}}},
           "bySexNullifying": {"entity": "Human", "attributes": {"name": "name", "sex": "sex"},
                               "connections": {"cats": {"attributes": "sex", "nullifyWhenSourceNil": true}}},
           "catsOfHuman": {"entity": "Human", "attributes": {"name": "name"},
                           "relationships": {"cats": {"mapping": "cat"}}},
           "house": {"entity": "House", "attributes": {"address": "address"},
                     "relationships": {"owner": {"mapping": "favorite"}, "residents": {"mapping": "tenant"}}},
           "tenant": {"entity": "Human", "attributes": {"name": "name"},
                      "connections": {"landlord": {"keyPath": "residence.owner"}, "roommates": {"keyPath": "residence.residents"}}},
           "friendly": {"entity": "Child", "attributes": {"name": "name", "friendIDs": "friendIDs"},
                        "connections": {"friends": {"attributes": {"friendIDs": "railsID"}}}},
           "friendlyExact": {"entity": "Child", "attributes": {"name": "name", "friendIDs": "friendIDs"},
                             "connections": {"friends": {"attributes": {"friendIDs": "railsID"}, "includesSubentities": false}}},
           "human": {"entity": "Human", "attributes": {"name": "name", "railsID": "railsID"}},
           "child": {"entity": "Child", "attributes": {"name": "name", "railsID": "railsID"}}}}
        """

    private let cats = """
        [{"name": "Asia", "railsID": 1, "sex": "female", "birthYear": 2011},
         {"name": "Lola", "railsID": 2, "sex": "female", "birthYear": 2012},
         {"name": "Roy", "railsID": 3, "sex": "male"},
         {"name": "Reginald Royford Williams III", "railsID": 31338}]
        """

    private func names(_ ctx: MappingContext, _ objects: [ObjectID]) throws -> [String] {
        try objects.map { object in
            guard case .string(let name)? = try ctx.value(of: object, attribute: "name").0 else { return "?" }
            return name
        }
    }

    private func catsOf(_ ctx: MappingContext, _ human: ObjectID) throws -> Set<String> {
        Set(try names(ctx, ctx.relatedObjects(of: human, relationship: "cats")))
    }

    func testToOneByForeignKeyG1G13AndItsInverseG14() throws {
        let ctx = try TestFixtures.context(spec)
        // The human comes first and the cat later in the same payload: connections run at the end.
        let human = try XCTUnwrap(ctx.importJSON(mapping: "favorite", #"[{"name": "Blake", "favoriteCatID": 31337}, {"name": "Jeremy", "favoriteCatID": 31337}]"#).first)
        XCTAssertNil(try ctx.relatedObject(of: human, relationship: "favoriteCat"), "no such cat yet: nullified")
        let asia = try XCTUnwrap(ctx.importJSON(mapping: "cat", #"{"name": "Asia", "railsID": 31337}"#).first)
        _ = try ctx.importJSON(mapping: "favorite", #"[{"name": "Blake", "favoriteCatID": "31337"}, {"name": "Jeremy", "favoriteCatID": 31337}]"#)
        XCTAssertEqual(try ctx.relatedObject(of: human, relationship: "favoriteCat"), asia)
        XCTAssertEqual(Set(try names(ctx, ctx.relatedObjects(of: asia, relationship: "favoriteOfHumans"))), ["Blake", "Jeremy"])
    }

    func testToManyByAttributeG2G3() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "cat", cats)
        let human = try XCTUnwrap(ctx.importJSON(mapping: "bySex", #"{"name": "Blake", "sex": "female"}"#).first)
        XCTAssertEqual(try catsOf(ctx, human), ["Asia", "Lola"])
        _ = try ctx.importJSON(mapping: "bySex", #"{"name": "Blake", "sex": "invalid"}"#)
        XCTAssertEqual(try catsOf(ctx, human), [], "G3: no match nullifies")
    }

    func testAllNilIsSkippedG6G8UnlessAskedG7() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "cat", cats)
        let human = try XCTUnwrap(ctx.importJSON(mapping: "catsOfHuman", #"{"name": "Blake", "cats": [{"railsID": 1}]}"#).first)
        _ = try ctx.importJSON(mapping: "bySex", #"{"name": "Blake", "sex": null}"#)
        XCTAssertEqual(try catsOf(ctx, human), ["Asia"], "G8: all source values nil: skipped")
        _ = try ctx.importJSON(mapping: "bySexNullifying", #"{"name": "Blake"}"#)
        XCTAssertEqual(try catsOf(ctx, human), [], "nullifyWhenSourceNil clears it")
    }

    func testAndAcrossAttributesNilMatchesNilG7() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "cat", cats)
        _ = try ctx.importJSON(mapping: "cat", #"{"name": "Nil", "railsID": 4, "sex": "female"}"#)
        // railsID null matches no cat (every cat has one): with sex female, nothing.
        let human = try XCTUnwrap(ctx.importJSON(mapping: "bySexAndName", #"{"name": "Blake", "sex": "female", "railsID": 2}"#).first)
        XCTAssertEqual(try catsOf(ctx, human), ["Lola"], "sex AND railsID")
        _ = try ctx.importJSON(mapping: "bySexAndName", #"{"name": "Blake", "sex": null, "railsID": 31338}"#)
        XCTAssertEqual(try catsOf(ctx, human), ["Reginald Royford Williams III"], "a nil sex matches a nil sex")
    }

    func testCollectionValuedSourceIsAnOrG15AndCreateMissing() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "cat", cats)
        let human = try XCTUnwrap(ctx.importJSON(mapping: "byIDs", #"{"name": "Blake", "catIDs": [31338, "1", 99]}"#).first)
        XCTAssertEqual(try names(ctx, ctx.relatedObjects(of: human, relationship: "cats")), ["Reginald Royford Williams III", "Asia"])
        XCTAssertEqual(try ctx.count(of: "Cat"), 4, "RestKit never creates")
        _ = try ctx.importJSON(mapping: "byIDsCreating", #"{"name": "Blake", "catIDs": [1, 99]}"#)
        XCTAssertEqual(try ctx.relatedObjects(of: human, relationship: "cats").count, 2)
        XCTAssertNotNil(try ctx.object(of: "Cat", identity: .integer(99)), "createMissing made cat 99")
    }

    func testCreateMissingMakesNoSecondObjectForAnIdentityAnotherKindHolds() throws {
        let withKittens = spec
            .replacingOccurrences(of: #""House": {"attributes""#, with: #""Kitten": {"parent": "Cat"}, "House": {"attributes""#)
            .replacingOccurrences(of: #""human": {"#, with: #""kitten": {"entity": "Kitten", "attributes": {"name": "name", "railsID": "railsID"}}, "exactCreating": {"entity": "Human", "attributes": {"name": "name", "catIDs": "catIDs"}, "connections": {"cats": {"attributes": {"catIDs": "railsID"}, "createMissing": true, "includesSubentities": false}}}, "human": {"#)
        let ctx = try TestFixtures.context(withKittens)
        let kitten = try XCTUnwrap(ctx.importJSON(mapping: "kitten", #"{"name": "Tiny", "railsID": 5}"#).first)
        let human = try XCTUnwrap(ctx.importJSON(mapping: "exactCreating", #"{"name": "Blake", "catIDs": [5, 6]}"#).first)
        XCTAssertEqual(try catsOf(ctx, human), ["?"], "cat 6 was made (no name); the kitten is not a Cat exactly")
        XCTAssertEqual(try ctx.object(of: "Cat", identity: .integer(5)), kitten, "identity 5 still names the kitten alone")
        XCTAssertEqual(try ctx.count(of: "Cat"), 2, "the kitten and the new cat 6: no second object for identity 5")
    }

    func testByKeyPathG9G10() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "house", """
            {"address": "1 Main St", "owner": {"name": "Owner"},
             "residents": [{"name": "Resident 1"}, {"name": "Resident 2"}]}
            """)
        let resident = try XCTUnwrap(ctx.object(of: "Human", identity: .string("Resident 1")))
        XCTAssertEqual(try names(ctx, [try XCTUnwrap(ctx.relatedObject(of: resident, relationship: "landlord"))]), ["Owner"])
        XCTAssertEqual(try names(ctx, ctx.relatedObjects(of: resident, relationship: "roommates")), ["Resident 1", "Resident 2"])
    }

    func testSubentitiesG12() throws {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "human", #"{"name": "Human 12345", "railsID": 12345}"#)
        _ = try ctx.importJSON(mapping: "child", #"{"name": "Child 12345", "railsID": 12345}"#)
        let second = try XCTUnwrap(ctx.importJSON(mapping: "friendly", #"{"name": "Second Child", "friendIDs": [12345]}"#).first)
        XCTAssertEqual(Set(try names(ctx, ctx.relatedObjects(of: second, relationship: "friends"))), ["Human 12345", "Child 12345"])
        _ = try ctx.importJSON(mapping: "friendlyExact", #"{"name": "Second Child", "friendIDs": [12345]}"#)
        XCTAssertEqual(try names(ctx, ctx.relatedObjects(of: second, relationship: "friends")), ["Human 12345"])
    }

    func testSourceAndDestinationPredicatesG4G5() throws {
        let withPredicates = spec.replacingOccurrences(
            of: #""connections": {"cats": {"attributes": "sex"}}"#,
            with: #""connections": {"cats": {"attributes": "sex", "sourcePredicate": "sex == 'female'", "destinationPredicate": "birthYear = 2011"}}"#)
        let ctx = try TestFixtures.context(withPredicates)
        _ = try ctx.importJSON(mapping: "cat", cats)
        let blake = try XCTUnwrap(ctx.importJSON(mapping: "bySex", #"{"name": "Blake", "sex": "female"}"#).first)
        XCTAssertEqual(try catsOf(ctx, blake), ["Asia"], "G5: only the cats born in 2011")
        let roy = try XCTUnwrap(ctx.importJSON(mapping: "bySex", #"{"name": "Roy", "sex": "male"}"#).first)
        XCTAssertEqual(try catsOf(ctx, roy), [], "G4: the source predicate is false: skipped")
    }

    func testConnectionSpecErrorsG18Shapes() {
        for (connection, fragment) in [(#"{"attributes": "nope"}"#, "no attribute \"nope\""),
                                       (#"{"keyPath": "residence.nope"}"#, "no relationship \"nope\""),
                                       (#"{"keyPath": "residence"}"#, "not to \"Cat\""),
                                       (#"{"attributes": "sex", "createMissing": true}"#, "createMissing needs"),
                                       (#"{}"#, "exactly one of"),
                                       (#"{"attributes": "sex", "sourcePredicate": "x"}"#, "sourcePredicate: expected a comparison operator"),
                                       (#"{"attributes": "sex", "destinationPredicate": "shoe == 1"}"#, "no attribute or relationship \"shoe\"")] {
            XCTAssertThrowsError(try TestFixtures.context(spec.replacingOccurrences(
                of: #""connections": {"cats": {"attributes": "sex"}}"#, with: #""connections": {"cats": \#(connection)}"#))) { error in
                XCTAssertTrue((error as? MappingError)?.message.contains(fragment) == true,
                              "\(connection): \((error as? MappingError)?.message ?? "")")
                XCTAssertTrue((error as? MappingError)?.path.hasPrefix("$.mappings.bySex.connections.cats") == true)
            }
        }
    }
}
