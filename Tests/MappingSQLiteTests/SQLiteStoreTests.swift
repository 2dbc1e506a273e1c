@testable import MappingSQLite
@testable import MappingEngine
import MappingCore
import MappingJSON
import MappingLock
import XCTest
import _MappingTestSupport

/// The SQLite store from Swift: a graph with sub-entities, ordered many-to-manys and exact values
/// reads back the same after the context is gone; renames in the spec keep the data; a newer
/// layout and a full disk are errors that change neither the file nor the graph.
final class SQLiteStoreTests: XCTestCase {
    /// Animals (Dog and Cat share their root's table) in ordered shelters (a many-to-many, in join
    /// tables) with keepers (a one-to-many on the animals' rows).
    private static let spec = """
        {"entities": {
           "Animal": {"attributes": {"id": "integer", "name": "string", "weight": "decimal", "born": "date", "extra": "json"},
                      "identification": ["id"],
                      "relationships": {"shelters": {"entity": "Shelter", "toMany": true, "ordered": true, "inverse": "animals"},
                                        "keeper": {"entity": "Keeper", "inverse": "animals"}}},
           "Dog": {"parent": "Animal", "attributes": {"good": "boolean"}},
           "Cat": {"parent": "Animal", "attributes": {"lives": "integer"}},
           "Shelter": {"attributes": {"code": "string"}, "identification": ["code"],
                       "relationships": {"animals": {"entity": "Animal", "toMany": true, "ordered": true, "inverse": "shelters"}}},
           "Keeper": {"attributes": {"id": "integer", "name": "string"}, "identification": ["id"],
                      "relationships": {"animals": {"entity": "Animal", "toMany": true, "ordered": true, "inverse": "keeper"}}}},
         "mappings": {
           "animal": {"dynamic": {"keyPath": "kind", "cases": {"dog": "dog", "cat": "cat"}, "default": "generic"}},
           "generic": {"entity": "Animal", "attributes": {"id": "id", "name": "name", "weight": "weight", "born": "born", "extra": "extra"},
                      "relationships": {"shelters": {"mapping": "shelter"}, "keeper": {"mapping": "keeper"}}},
           "dog": {"entity": "Dog", "attributes": {"id": "id", "name": "name", "weight": "weight", "born": "born", "extra": "extra", "good": "good"},
                   "relationships": {"shelters": {"mapping": "shelter"}, "keeper": {"mapping": "keeper"}}},
           "cat": {"entity": "Cat", "attributes": {"id": "id", "name": "name", "weight": "weight", "born": "born", "extra": "extra", "lives": "lives"},
                   "relationships": {"shelters": {"mapping": "shelter"}, "keeper": {"mapping": "keeper"}}},
           "shelter": {"entity": "Shelter", "attributes": {"code": "code"},
                       "relationships": {"animals": {"mapping": "animal"}}},
           "keeper": {"entity": "Keeper", "attributes": {"id": "id", "name": "name"}}}}
        """

    private static let payload = """
        [{"id": 1, "kind": "dog", "name": "Rex", "weight": "12345678901234567890.125", "born": "2020-02-29T12:00:00.123456Z",
          "extra": {"chip": [1, 2.5, "x"]}, "good": true, "shelters": [{"code": "N"}, {"code": "S"}], "keeper": {"id": 7, "name": "Ann"}},
         {"id": 2, "kind": "cat", "name": "Tom", "weight": 4.5, "lives": 9, "shelters": [{"code": "S"}, {"code": "E"}, {"code": "N"}],
          "keeper": {"id": 7, "name": "Ann"}},
         {"id": 3, "name": "Generic", "shelters": [{"code": "E"}], "keeper": {"id": 8, "name": "Bo"}},
         {"id": 4, "kind": "dog", "name": "Fido", "good": false, "keeper": {"id": 7}}]
        """

    private var path = ""

    override func setUp() {
        path = "/tmp/mapping-swift-store-\(getpid())-\(name.filter(\.isLetter)).db"
        removeFiles()
    }

    override func tearDown() { removeFiles() }

    private func removeFiles() {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    private func open(_ spec: String = spec) throws -> (MappingContext, SQLiteStore) {
        let context = try MappingContext.open(specJSON: spec, at: path)
        return (context, try XCTUnwrap(context.persistentStore as? SQLiteStore))
    }

    /// Writes the store with 250 dogs, A1 … A250, and closes it.
    private func storeOf250Dogs() throws {
        let (context, _) = try open()
        let animals = (1...250).map { #"{"id": \#($0), "kind": "dog", "name": "A\#($0)"}"# }
        _ = try context.importJSON(mapping: "animal", "[" + animals.joined(separator: ",") + "]")
    }

    /// Every object of every entity with its values, entity and relationships in order, as text.
    private func dump(_ context: MappingContext) throws -> String {
        var lines: [String] = []
        for entity in context.model.entities where entity.parent == nil {
            for object in try context.objects(of: entity.name) {
                let actual = try XCTUnwrap(context.model.entity(named: try context.entityName(of: object)))
                var line = "\(actual.name):"
                for attribute in actual.attributes {
                    line += " \(attribute.name)=\(String(describing: try context.value(of: object, attribute: attribute.name).0))"
                }
                for relationship in actual.relationships {
                    let targets = relationship.toMany ? try context.relatedObjects(of: object, relationship: relationship.name)
                        : try context.relatedObject(of: object, relationship: relationship.name).map { [$0] } ?? []
                    let names = try targets.map { target in
                        let (value, _) = try context.value(of: target, attribute: context.model.entities[relationship.destination].attributes[0].name)
                        return String(describing: value)
                    }
                    line += " \(relationship.name)=[\(names.joined(separator: ","))]"
                }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    func testAGraphWithSubEntitiesReadsBackTheSameAfterItsContextIsGone() throws {
        var written = ""
        do {
            let (context, _) = try open()
            _ = try context.importJSON(mapping: "animal", Self.payload)
            let tom = try XCTUnwrap(context.object(of: "Animal", identity: .integer(2)))
            try context.moveRelated(tom, relationship: "shelters", from: 2, to: 0)  // N, S, E
            let bo = try XCTUnwrap(context.object(of: "Keeper", identity: .integer(8)))
            try context.addRelated(bo, relationship: "animals", tom, at: 0)        // Tom moves to Bo, first
            written = try dump(context)
        }
        XCTAssertTrue(written.contains("Dog: id=Optional(MappingCore.AttributeValue.integer(1))"), written)
        XCTAssertTrue(written.contains("Cat:"), written)
        XCTAssertTrue(written.contains("12345678901234567890.125"), written)
        let (context, _) = try open()
        XCTAssertEqual(try dump(context), written)
        XCTAssertEqual(try context.count(of: "Dog"), 2)
        XCTAssertEqual(try context.count(of: "Animal"), 4)
        let shelter = try XCTUnwrap(context.object(of: "Shelter", identity: .string("N")))
        let names = try context.relatedObjects(of: shelter, relationship: "animals").map {
            try context.value(of: $0, attribute: "name").0
        }
        XCTAssertEqual(names, [.string("Rex"), .string("Tom")])
        let bo = try XCTUnwrap(context.object(of: "Keeper", identity: .integer(8)))
        XCTAssertEqual(try context.relatedObjects(of: bo, relationship: "animals").map { try context.value(of: $0, attribute: "name").0 },
                       [.string("Tom"), .string("Generic")])
    }

    func testRenamesInTheSpecKeepTheData() throws {
        var before = ""
        do {
            let (context, _) = try open()
            _ = try context.importJSON(mapping: "animal", Self.payload)
            before = try dump(context)
        }
        // Keeper becomes Carer (a root entity: its table), Animal.name becomes title (inherited by
        // Dog and Cat), Animal.shelters becomes homes (a join table), Animal.keeper becomes carer
        // (a to-one column and its position column), Cat.lives becomes livesLeft.
        let renamed = Self.spec
            .replacingOccurrences(of: "\"Keeper\": {\"attributes\"", with: "\"Carer\": {\"renamedFrom\": \"Keeper\", \"attributes\"")
            .replacingOccurrences(of: "\"entity\": \"Keeper\"", with: "\"entity\": \"Carer\"")
            .replacingOccurrences(of: "\"name\": \"string\", \"weight\"", with: "\"title\": {\"type\": \"string\", \"renamedFrom\": \"name\"}, \"weight\"")
            .replacingOccurrences(of: "\"attributes\": {\"id\": \"id\", \"name\": \"name\", \"weight\"", with: "\"attributes\": {\"id\": \"id\", \"title\": \"name\", \"weight\"")
            .replacingOccurrences(of: "\"shelters\": {\"entity\"", with: "\"homes\": {\"renamedFrom\": \"shelters\", \"entity\"")
            .replacingOccurrences(of: "\"inverse\": \"shelters\"", with: "\"inverse\": \"homes\"")
            .replacingOccurrences(of: "\"shelters\": {\"mapping\"", with: "\"homes\": {\"keyPath\": \"shelters\", \"mapping\"")
            .replacingOccurrences(of: "\"keeper\": {\"entity\": \"Carer\", \"inverse\": \"animals\"}",
                                  with: "\"carer\": {\"entity\": \"Carer\", \"inverse\": \"animals\", \"renamedFrom\": \"keeper\"}")
            .replacingOccurrences(of: "\"inverse\": \"keeper\"", with: "\"inverse\": \"carer\"")
            .replacingOccurrences(of: "\"keeper\": {\"mapping\"", with: "\"carer\": {\"keyPath\": \"keeper\", \"mapping\"")
            .replacingOccurrences(of: "\"lives\": \"integer\"", with: "\"livesLeft\": {\"type\": \"integer\", \"renamedFrom\": \"lives\"}")
            .replacingOccurrences(of: "\"lives\": \"lives\"", with: "\"livesLeft\": \"lives\"")
        // The same objects and values under the new names (a keeper's own name attribute stays).
        let expected = before.split(separator: "\n").map { line in
            line.hasPrefix("Keeper:") ? line.replacingOccurrences(of: "Keeper:", with: "Carer:")
                : line.replacingOccurrences(of: " name=", with: " title=").replacingOccurrences(of: " shelters=", with: " homes=")
                    .replacingOccurrences(of: " keeper=", with: " carer=").replacingOccurrences(of: " lives=", with: " livesLeft=")
        }.joined(separator: "\n")
        for _ in 0..<2 {  // renamed once; the second open finds nothing left to rename
            let (context, store) = try open(renamed)
            XCTAssertEqual(try dump(context), expected)
            let tables = try names(store, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            XCTAssertEqual(tables, ["Animal", "Animal_homes", "Carer", "Shelter", "Shelter_animals", "_mapping"])
            let columns = try names(store, "SELECT name FROM pragma_table_info('Animal') ORDER BY cid")
            XCTAssertEqual(columns, ["_id", "_entity", "id", "title", "weight", "born", "extra", "carer", "carer_position", "good", "livesLeft"])
            XCTAssertEqual(try names(store, "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name"),
                           ["Animal_carer", "Animal_identity", "Carer_identity", "Shelter_identity"])
        }
        do {  // and the renamed store takes new objects
            let (context, _) = try open(renamed)
            _ = try context.importJSON(mapping: "animal", #"[{"id": 5, "kind": "cat", "name": "Kit", "lives": 3, "keeper": {"id": 8}}]"#)
        }
        let (context, _) = try open(renamed)
        let kit = try XCTUnwrap(context.object(of: "Cat", identity: .integer(5)))
        XCTAssertEqual(try context.value(of: kit, attribute: "livesLeft").0, .integer(3))
        XCTAssertEqual(try context.value(of: try XCTUnwrap(context.relatedObject(of: kit, relationship: "carer")), attribute: "name").0,
                       .string("Bo"))
    }

    /// A rename claim comes before a match by name; inherited names follow their declaring entity
    /// (also for a sub-entity the spec dropped); columns renamed into each other's names move
    /// through temporary ones.
    func testRenamesThatReuseNamesOrCrossInATableKeepEveryValue() throws {
        let before = """
            {"entities": {"Animal": {"attributes": {"id": "integer", "name": "string"}, "identification": ["id"]},
                          "Dog": {"parent": "Animal", "attributes": {"p": "string"}},
                          "Cat": {"parent": "Animal", "attributes": {"q": "string"}},
                          "Bird": {"parent": "Animal"}},
             "mappings": {"dog": {"entity": "Dog", "attributes": {"id": "id", "name": "name", "p": "p"}},
                          "cat": {"entity": "Cat", "attributes": {"id": "id", "name": "name", "q": "q"}}}}
            """
        do {
            let (context, _) = try open(before)
            _ = try context.importJSON(mapping: "dog", #"[{"id": 1, "name": "Rex", "p": "dog p"}]"#)
            _ = try context.importJSON(mapping: "cat", #"[{"id": 2, "name": "Tom", "q": "cat q"}]"#)
        }
        // name becomes title while a new name is declared; Dog.p becomes q (Cat keeps its own q);
        // Bird, which has no objects, is dropped.
        let after = """
            {"entities": {"Animal": {"attributes": {"id": "integer", "title": {"type": "string", "renamedFrom": "name"}, "name": "string"},
                                     "identification": ["id"]},
                          "Dog": {"parent": "Animal", "attributes": {"q": {"type": "string", "renamedFrom": "p"}}},
                          "Cat": {"parent": "Animal", "attributes": {"q": "string"}}},
             "mappings": {"dog": {"entity": "Dog", "attributes": {"id": "id", "title": "name", "q": "p"}},
                          "cat": {"entity": "Cat", "attributes": {"id": "id", "title": "name", "q": "q"}}}}
            """
        let (context, store) = try open(after)
        let rex = try XCTUnwrap(context.object(of: "Animal", identity: .integer(1)))
        let tom = try XCTUnwrap(context.object(of: "Animal", identity: .integer(2)))
        XCTAssertEqual(try context.value(of: rex, attribute: "title").0, .string("Rex"))
        XCTAssertNil(try context.value(of: rex, attribute: "name").0, "the new name starts empty")
        XCTAssertEqual(try context.value(of: rex, attribute: "q").0, .string("dog p"))
        XCTAssertEqual(try context.value(of: tom, attribute: "q").0, .string("cat q"))
        XCTAssertEqual(try names(store, "SELECT name FROM pragma_table_info('Animal') ORDER BY cid"),
                       ["_id", "_entity", "id", "title", "q", "Cat_q", "name"])
    }

    /// Opening reads no rows; a get reads the row it finds, an import the rows it touches, a count
    /// none (the database counts); following a relationship reads its targets; a transaction reads
    /// what its calls touch, and an import deleting orphans asks the database for its scope.
    func testRowsAreReadAsTheyAreTouched() throws {
        do {
            let (context, _) = try open()
            _ = try context.importJSON(mapping: "animal", Self.payload)
        }
        let (context, _) = try open()
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), 0)
        XCTAssertEqual(context.identityEntryCount(of: "Keeper"), 0)
        let rex = try XCTUnwrap(context.object(of: "Animal", identity: .integer(1)))
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), 1)
        XCTAssertEqual(try context.entityName(of: rex), "Dog")
        _ = try context.importJSON(mapping: "animal", #"[{"id": 4, "kind": "dog", "name": "Fido II"}]"#)
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), 2, "the import read the one row it changed")
        XCTAssertEqual(context.identityEntryCount(of: "Shelter"), 0, "the shelters of Rex (read) are faults")
        XCTAssertEqual(try context.count(of: "Animal"), 4)
        XCTAssertEqual(try context.count(of: "Animal", where: "name BEGINSWITH 'T'"), 1)
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), 3, "a prefix narrows in the database: its one candidate is read")
        XCTAssertEqual(try context.count(of: "Animal", where: "name ENDSWITH 'II'"), 1)
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), 3, "a suffix narrows in the database: its candidate was read already")
        XCTAssertEqual(try context.count(of: "Animal", where: "name MATCHES '.*II'"), 1)
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), 4, "a test the database cannot run reads the candidates")
        _ = try context.importJSON(mapping: "animal", #"[{"id": 5, "name": "Stray"}]"#)
        try context.delete(try XCTUnwrap(context.object(of: "Keeper", identity: .integer(8))))
        let keepers = context.identityEntryCount(of: "Keeper")
        XCTAssertEqual(try context.count(of: "Animal", where: "keeper.name == 'Ann'"), 3)
        XCTAssertEqual(try context.count(of: "Animal", where: "keeper.name != 'Ann'"), 2, "no keeper (5, and 3 whose keeper went): null")
        XCTAssertEqual(try context.count(of: "Animal", where: "keeper == nil"), 2)
        XCTAssertEqual(try context.count(of: "Keeper", where: "animals.@count == 3"), 1, "a one-to-many, counted on its targets' rows")
        XCTAssertEqual(try context.count(of: "Shelter", where: "animals.@count >= 2"), 3, "a many-to-many, counted in its join table")
        XCTAssertEqual(try context.count(of: "Shelter", where: "ANY animals.name == 'Rex'"), 2)
        XCTAssertEqual(try context.count(of: "Shelter", where: "NONE animals.name == 'Generic'"), 2)
        let byKeeper = try context.fetch(FetchRequest(entity: "Animal", sort: "keeper.name,-id"))
        XCTAssertEqual(try context.values(of: byKeeper, attribute: "id"), [5, 3, 4, 2, 1].map { .integer($0) },
                       "no keeper sorts first, as null")
        XCTAssertEqual(context.identityEntryCount(of: "Keeper"), keepers,
                       "key paths through to-ones, counts and sorts through to-ones run in the database")
        XCTAssertEqual(try context.count(of: "Keeper", where: "ALL animals.name BETWEEN {'A', 'U'}"), 1)
        XCTAssertEqual(context.identityEntryCount(of: "Keeper"), keepers + 1, "a string range under ALL: memory finishes on Ann")
        let keeper = try XCTUnwrap(context.relatedObject(of: rex, relationship: "keeper"))
        XCTAssertEqual(context.identityEntryCount(of: "Keeper"), 1)
        XCTAssertEqual(try context.value(of: keeper, attribute: "name").0, .string("Ann"))
        XCTAssertEqual(try context.relatedObjects(of: keeper, relationship: "animals").count, 3)
        XCTAssertEqual(try context.object(of: "Animal", identity: .integer(1)), rex, "one handle per row throughout")
        XCTAssertEqual(try context.relatedObject(of: rex, relationship: "keeper"), keeper)
        XCTAssertEqual(context.identityEntryCount(of: "Shelter"), 0)
        try context.begin()
        _ = try context.importJSON(mapping: "animal", #"[{"id": 1, "name": "Rex II"}]"#)
        try context.rollback()
        XCTAssertEqual(context.identityEntryCount(of: "Shelter"), 0, "a transaction reads what its calls touch")
        XCTAssertEqual(try context.value(of: rex, attribute: "name").0, .string("Rex"))
        _ = try context.importJSON(mapping: "animal", "[]", options: ImportOptions(orphanScope: ("Keeper", "id == -1")))
        XCTAssertEqual(context.identityEntryCount(of: "Shelter"), 0, "orphan deletion reads its scope's rows only")
        XCTAssertEqual(try context.count(of: "Keeper"), 1)
    }

    /// A transaction's calls run in savepoints; a run undone after it read rows (a probe of an
    /// import with callbacks, deleting orphans) keeps the objects the transaction deleted before
    /// it listed, so that the transaction's rollback brings them back whole. The graph's invariants
    /// hold after every step.
    func testARunUndoneInATransactionKeepsWhatTheTransactionDeleted() throws {
        try storeOf250Dogs()
        let (context, _) = try open()
        func assertInvariants(_ step: String) throws {
            let model = context.model
            let broken = try context.withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) in
                store.invariantViolations(model: model)
            }
            XCTAssertEqual(broken, [], step)
        }
        try context.begin()
        let first = try XCTUnwrap(context.object(of: "Animal", identity: .integer(1)))
        try context.delete(first)
        try assertInvariants("after the delete")
        var options = ImportOptions(onEvent: { _ in }, orphanScope: ("Animal", "id > 240"))
        options.progressInterval = 1
        _ = try context.importJSON(mapping: "animal", #"[{"id": 245, "kind": "dog", "name": "kept"}]"#, options: options)
        try assertInvariants("after the import deleting orphans")
        XCTAssertEqual(try context.count(of: "Animal"), 240, "1 and 241…250 but 245 deleted")
        try context.rollback()
        try assertInvariants("after the rollback")
        XCTAssertEqual(try context.value(of: first, attribute: "name").0, .string("A1"))
        XCTAssertEqual(try context.count(of: "Animal"), 250)
        XCTAssertEqual(try context.value(of: try XCTUnwrap(context.object(of: "Animal", identity: .integer(250))), attribute: "name").0,
                       .string("A250"))
    }

    /// A one-to-many kept on its targets' rows is read only when it is followed: reading its owner
    /// makes no fault per target, and targets moving between owners whose lists were never read
    /// read neither list. The file keeps each list in order at places 0…n-1, as memory orders it,
    /// and an observer registered later hears of the owners whose lists change.
    func testAListKeptOnItsTargetsRowsIsReadOnlyWhenFollowed() throws {
        do {
            let (context, _) = try open()
            _ = try context.importJSON(mapping: "animal", Self.payload)
        }
        let (context, store) = try open()
        let ann = try XCTUnwrap(context.object(of: "Keeper", identity: .integer(7)))
        XCTAssertEqual(try context.value(of: ann, attribute: "name").0, .string("Ann"))
        XCTAssertEqual(context.faultCount, 0, "Ann's three animals are no faults: her list is not read")
        // Tom leaves Ann for Bo, a new animal joins Ann, Fido leaves Ann for a new keeper, Rex stays.
        _ = try context.importJSON(mapping: "animal", """
            [{"id": 2, "kind": "cat", "keeper": {"id": 8}}, {"id": 9, "name": "New", "keeper": {"id": 7}},
             {"id": 4, "kind": "dog", "keeper": {"id": 10, "name": "Cy"}}, {"id": 1, "kind": "dog", "keeper": {"id": 7}}]
            """)
        XCTAssertEqual(context.faultCount, 3, "the shelters N, S and E that Rex and Tom link to; no keeper's animals")
        func list(_ keeper: Int) throws -> [String] {
            try names(store, "SELECT \"id\" || ':' || \"keeper_position\" FROM \"Animal\" WHERE \"keeper\" = "
                      + "(SELECT \"_id\" FROM \"Keeper\" WHERE \"id\" = \(keeper)) ORDER BY \"keeper_position\"")
        }
        XCTAssertEqual(try list(7), ["1:0", "9:1"])
        XCTAssertEqual(try list(8), ["3:0", "2:1"])
        XCTAssertEqual(try list(10), ["4:0"])
        func ids(_ keeper: ObjectID) throws -> [AttributeValue?] {
            try context.values(of: try context.relatedObjects(of: keeper, relationship: "animals"), attribute: "id")
        }
        XCTAssertEqual(try ids(ann), [.integer(1), .integer(9)])
        let bo = try XCTUnwrap(context.object(of: "Keeper", identity: .integer(8)))
        _ = try context.value(of: bo, attribute: "name")
        let heard = Locked<[ChangeSet]>([])
        let token = context.addObserver { changes in heard.withLock { $0.append(changes) } }
        defer { _ = context.removeObserver(token) }
        _ = try context.importJSON(mapping: "animal", #"[{"id": 3, "keeper": {"id": 7}}]"#)
        let updated = heard.withLock { $0 }.flatMap(\.updated).map { "\($0.entity):\($0.changed)" }.sorted()
        XCTAssertEqual(updated, ["Animal:[\"keeper\"]", "Keeper:[\"animals\"]", "Keeper:[\"animals\"]"],
                       "Generic moved from Bo to Ann: both lists changed")
        XCTAssertEqual(try ids(ann), [.integer(1), .integer(9), .integer(3)])
        XCTAssertEqual(try ids(bo), [.integer(2)])
        XCTAssertEqual(try list(7), ["1:0", "9:1", "3:2"])
        XCTAssertEqual(try list(8), ["2:0"])
    }

    /// A row moving between two lists the graph has not read, where no row joins the list it
    /// leaves, is written once: its new place after the last of the list it joins is in its own
    /// UPDATE (no statement clears its old place first), the rows of the list it left keep their
    /// places (a gap), and a row leaving for no owner keeps no place. Both lists read back in order.
    func testARowMovingBetweenUnreadListsIsPlacedByItsOwnUpdate() throws {
        do {
            let (context, _) = try open()
            _ = try context.importJSON(mapping: "animal", Self.payload)
        }
        do {
            let (context, store) = try open()
            // Rex leaves Ann for Bo; Fido leaves Ann for nobody; Tom stays with Ann.
            _ = try context.importJSON(mapping: "animal", #"[{"id": 1, "kind": "dog", "keeper": {"id": 8}}, {"id": 4, "kind": "dog", "keeper": null}]"#)
            let placed = try names(store, "SELECT \"id\" || ':' || coalesce(\"keeper_position\", 'none') || ':' || coalesce((SELECT \"id\" FROM "
                                   + "\"Keeper\" WHERE \"Keeper\".\"_id\" = \"keeper\"), 'none') FROM \"Animal\" ORDER BY \"id\"")
            XCTAssertEqual(placed, ["1:1:8", "2:1:7", "3:0:8", "4:none:none"])
        }
        let (reopened, _) = try open()
        func ids(_ keeper: Int) throws -> [AttributeValue?] {
            let owner = try XCTUnwrap(reopened.object(of: "Keeper", identity: .integer(Int64(keeper))))
            return try reopened.values(of: try reopened.relatedObjects(of: owner, relationship: "animals"), attribute: "id")
        }
        XCTAssertEqual(try ids(7), [.integer(2)])
        XCTAssertEqual(try ids(8), [.integer(3), .integer(1)])
    }

    /// A new row joining a list the graph has not read is placed by its own INSERT, after the last
    /// of the list: one row written, not an INSERT and then an UPDATE of its place.
    func testANewRowJoiningAnUnreadListIsPlacedByItsInsert() throws {
        do {
            let (context, _) = try open()
            _ = try context.importJSON(mapping: "animal", Self.payload)
        }
        do {
            let (context, store) = try open()
            let before = store.connection.totalChanges
            _ = try context.importJSON(mapping: "animal", #"[{"id": 5, "kind": "cat", "name": "Kit", "keeper": {"id": 8}}]"#)
            XCTAssertEqual(store.connection.totalChanges - before, 1, "the new row, placed as it was inserted")
            let placed = try names(store, "SELECT \"id\" || ':' || coalesce(\"keeper_position\", 'none') FROM \"Animal\" "
                                   + "WHERE \"keeper\" = (SELECT \"_id\" FROM \"Keeper\" WHERE \"id\" = 8) ORDER BY \"id\"")
            XCTAssertEqual(placed, ["3:0", "5:1"])
        }
        let (reopened, _) = try open()
        let owner = try XCTUnwrap(reopened.object(of: "Keeper", identity: .integer(8)))
        XCTAssertEqual(try reopened.values(of: try reopened.relatedObjects(of: owner, relationship: "animals"), attribute: "id"),
                       [.integer(3), .integer(5)])
    }

    /// A fetch's result of objects not read yet is read as it is walked, a batch of rows at a time
    /// (from the object read on), not one row per object.
    func testAResultIsReadInBatchesAsItIsWalked() throws {
        try storeOf250Dogs()
        let (context, _) = try open()
        let result = try context.fetch(FetchRequest(entity: "Animal", sort: "id"))
        XCTAssertEqual(result.count, 250)
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), 0, "the result's rows are not read")
        XCTAssertEqual(try context.value(of: result[0], attribute: "name").0, .string("A1"))
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), FaultBatches.size, "reading one read its batch")
        XCTAssertEqual(try context.value(of: result[99], attribute: "name").0, .string("A100"))
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), FaultBatches.size, "the batch was read already")
        XCTAssertEqual(try context.value(of: result[249], attribute: "name").0, .string("A250"))
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), FaultBatches.size + 1, "a batch starts at the object read")
        XCTAssertEqual(try context.value(of: result[150], attribute: "name").0, .string("A151"))
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), 200, "the faults from 150 on, up to the one read already")
        for (index, animal) in result.enumerated() {
            XCTAssertEqual(try context.value(of: animal, attribute: "name").0, .string("A\(index + 1)"))
        }
        XCTAssertEqual(context.identityEntryCount(of: "Animal"), 250)
    }

    /// Past its cache limit a context evicts, at the end of each call, the objects least recently
    /// used: one used on every call stays (rows changed behind its back do not show), the others
    /// read their rows again when touched (the change shows), under the same handles. A deleted
    /// object's handle stays stale; nothing is evicted inside a transaction.
    func testTheCacheLimitEvictsTheLeastRecentlyUsed() throws {
        try storeOf250Dogs()
        let (context, store) = try open()
        XCTAssertEqual(context.cacheLimit, ObjectCache.defaultLimit)
        context.cacheLimit = 10
        let first = try XCTUnwrap(context.object(of: "Animal", identity: .integer(1)))
        var handles: [ObjectID] = []
        for id in 2...100 {
            handles.append(try XCTUnwrap(context.object(of: "Animal", identity: .integer(.init(id)))))
            XCTAssertEqual(try context.value(of: first, attribute: "name").0, .string("A1"))
            XCTAssertLessThanOrEqual(context.cachedObjectCount, 10)
        }
        try store.connection.execute(#"UPDATE "Animal" SET "name" = 'changed by hand'"#)
        XCTAssertEqual(try context.value(of: first, attribute: "name").0, .string("A1"), "used on every call: never evicted")
        XCTAssertEqual(try context.value(of: handles[0], attribute: "name").0, .string("changed by hand"), "evicted: its row read again")
        XCTAssertEqual(try context.object(of: "Animal", identity: .integer(2)), handles[0], "the same handle")
        try context.delete(handles[1])
        for id in 101...150 { _ = try context.object(of: "Animal", identity: .integer(.init(id))) }
        XCTAssertThrowsError(try context.value(of: handles[1], attribute: "name")) { error in
            XCTAssertEqual((error as? MappingError)?.code, .stale)
        }
        try context.begin()
        let all = try context.objects(of: "Animal")
        XCTAssertEqual(all.count, 249)
        for object in all { _ = try context.value(of: object, attribute: "name") }
        _ = try context.object(of: "Animal", identity: .integer(7))
        XCTAssertEqual(context.cachedObjectCount, 249, "nothing is evicted inside a transaction")
        try context.commit()
        XCTAssertLessThanOrEqual(context.cachedObjectCount, 10)
        XCTAssertEqual(try context.objects(of: "Animal").count, 249)
    }

    /// A file changed by hand so that a to-one points at a sibling entity of its table is refused
    /// when the row is read (following the link, or reading the whole graph), instead of breaking
    /// the graph's inverses.
    func testALinkToTheWrongEntityIsRefused() throws {
        let spec = """
            {"entities": {"Animal": {"attributes": {"id": "integer"}, "identification": ["id"]},
                          "Dog": {"parent": "Animal"}, "Cat": {"parent": "Animal"},
                          "Person": {"attributes": {"id": "integer"}, "identification": ["id"],
                                     "relationships": {"dog": {"entity": "Dog"}}}},
             "mappings": {"person": {"entity": "Person", "attributes": {"id": "id"},
                                     "relationships": {"dog": {"mapping": "dog"}}},
                          "dog": {"entity": "Dog", "attributes": {"id": "id"}},
                          "cat": {"entity": "Cat", "attributes": {"id": "id"}}}}
            """
        do {
            let (context, store) = try open(spec)
            _ = try context.importJSON(mapping: "person", #"[{"id": 1, "dog": {"id": 10}}]"#)
            _ = try context.importJSON(mapping: "cat", #"[{"id": 20}]"#)
            try store.connection.execute(#"UPDATE "Person" SET "dog" = (SELECT "_id" FROM "Animal" WHERE "id" = 20)"#)
        }
        do {
            let (following, _) = try open(spec)
            let person = try XCTUnwrap(following.object(of: "Person", identity: .integer(1)))
            XCTAssertThrowsError(try following.relatedObject(of: person, relationship: "dog")) { error in
                XCTAssertEqual((error as? MappingError)?.code, .store)
                XCTAssertTrue((error as? MappingError)?.message.contains("to a Cat, not a Dog") == true, "\(error)")
            }
        }
        // The cat read first: the person's row links to an object the graph knows is no Dog.
        let (reading, _) = try open(spec)
        XCTAssertNotNil(try reading.object(of: "Animal", identity: .integer(20)))
        XCTAssertThrowsError(try reading.object(of: "Person", identity: .integer(1))) { error in
            XCTAssertEqual((error as? MappingError)?.code, .store)
            XCTAssertEqual((error as? MappingError)?.attribute, "Person.dog")
            XCTAssertTrue((error as? MappingError)?.message.contains("links to a Cat, not a Dog") == true, "\(error)")
        }
    }

    private func names(_ store: SQLiteStore, _ sql: String) throws -> [String] {
        let query = try store.connection.statement(sql)
        var found: [String] = []
        while try query.step() {
            if case .text(let name) = query.column(0) { found.append(name) }
        }
        query.reset()
        return found
    }

    func testAStoreFromANewerLibraryIsRefusedAndLeftAlone() throws {
        do {
            let (context, store) = try open()
            _ = try context.importJSON(mapping: "animal", Self.payload)
            try store.connection.execute("UPDATE \"_mapping\" SET \"value\" = '99' WHERE \"key\" = 'format'")
        }
        let file = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertThrowsError(try open()) { error in
            XCTAssertEqual((error as? MappingError)?.code, .store)
            XCTAssertTrue((error as? MappingError)?.message.contains("newer libmapping (layout 99") == true, "\(error)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path), file)
    }

    func testAFullDiskFailsTheCommitWholeAndLeavesGraphAndFileAsTheyWere() throws {
        let (context, store) = try open()
        _ = try context.importJSON(mapping: "animal", Self.payload)
        let before = try dump(context)
        let pages = try XCTUnwrap(Int(names(store, "SELECT CAST(page_count AS TEXT) FROM pragma_page_count()").first ?? ""))
        try store.connection.execute("PRAGMA max_page_count = \(pages)")  // the disk is full: not one page more
        let many = "[" + (100..<2100).map { #"{"id": \#($0), "kind": "dog", "name": "Dog \#($0) with a long name to fill pages"}"# }
            .joined(separator: ",") + "]"
        XCTAssertThrowsError(try context.importJSON(mapping: "animal", many)) { error in
            XCTAssertEqual((error as? MappingError)?.code, .store)
            XCTAssertTrue((error as? MappingError)?.message.contains("full") == true, "\(error)")
        }
        XCTAssertEqual(try dump(context), before, "the graph is as it was")
        XCTAssertEqual(try context.count(of: "Animal"), 4)
        XCTAssertEqual(try names(store, "SELECT CAST(count(*) AS TEXT) FROM \"Animal\""), ["4"], "the file is as it was")
        try store.connection.execute("PRAGMA max_page_count = 1073741823")
        _ = try context.importJSON(mapping: "animal", many)  // room again: the same import succeeds whole
        XCTAssertEqual(try context.count(of: "Animal"), 2004)
    }
}
