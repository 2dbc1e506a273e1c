@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import XCTest
import _MappingTestSupport

/// Errors that say how to fix them: an unknown name gets the closest known one and the list of
/// known names; a predicate or sort error shows the text with a caret under the column.
final class NameHintTests: XCTestCase {
    private func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            XCTFail("expected an error")
            return ""
        } catch {
            return (error as? MappingError)?.message ?? "\(error)"
        }
    }

    func testTheClosestNameIsSuggestedOnlyWhenItIsClose() {
        XCTAssertEqual(NameHint.closest(to: "nmae", among: ["age", "name", "city"]), "name", "a swap of neighbours")
        XCTAssertEqual(NameHint.closest(to: "Persn", among: ["Company", "Person"]), "Person", "a letter left out")
        XCTAssertEqual(NameHint.closest(to: "CITY", among: ["age", "city"]), "city", "case aside")
        XCTAssertNil(NameHint.closest(to: "zzz", among: ["age", "name"]), "nothing close")
        XCTAssertNil(NameHint.closest(to: "", among: ["a", "b"]), "an empty name suggests nothing")
        XCTAssertEqual(NameHint.hint(for: "zzz", among: ["name", "age"]), " (known: age, name)")
        XCTAssertEqual(NameHint.hint(for: "x", among: []), " (none are declared)")
        let many = (1...20).map { "attribute\($0)" }
        XCTAssertTrue(NameHint.hint(for: "q", among: many).hasSuffix(", … (20 in all))"))
    }

    func testSpecMistakesNameTheLikelyFix() {
        let typo = message { _ = try CompiledSpec.load(json: #"{"entities": {"A": {"attributes": {"id": "integr"}}}, "mappings": {"a": {"entity": "A", "attributes": {"id": "id"}}}}"#) }
        XCTAssertTrue(typo.hasPrefix("unknown attribute type \"integr\": did you mean \"integer\"? (types: boolean, date,"), typo)
        let entity = message { _ = try CompiledSpec.load(json: #"{"entities": {"Person": {"attributes": {"id": "integer"}}}, "mappings": {"a": {"entity": "Persn", "attributes": {"id": "id"}}}}"#) }
        XCTAssertEqual(entity, "unknown entity \"Persn\": did you mean \"Person\"? (entities: Person)")
        let attribute = message { _ = try CompiledSpec.load(json: #"{"entities": {"Person": {"attributes": {"id": "integer", "name": "string"}}}, "mappings": {"a": {"entity": "Person", "attributes": {"id": "id", "nmae": "name"}}}}"#) }
        XCTAssertEqual(attribute, "entity \"Person\" has no attribute \"nmae\": did you mean \"name\"? (attributes: id, name)")
    }

    func testUnknownNamesAtRunTimeNameTheLikelyFix() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        let ada = try XCTUnwrap(ctx.object(of: "Person", identity: .integer(1)))
        XCTAssertTrue(message { try ctx.set(ada, attribute: "nmae", to: .string("x")) }
            .hasPrefix("entity \"Person\" has no attribute \"nmae\": did you mean \"name\"? (attributes: active, age, born,"))
        XCTAssertTrue(message { _ = try ctx.relatedObjects(of: ada, relationship: "phone") }
            .hasPrefix("entity \"Person\" has no relationship \"phone\": did you mean \"phones\"?"))
        XCTAssertEqual(message { _ = try ctx.objects(of: "Phones") }, "unknown entity \"Phones\": did you mean \"Phone\"? (entities: Company, Person, Phone)")
        XCTAssertEqual(message { _ = try ctx.importJSON(mapping: "persons", "{}") },
                       "unknown mapping \"persons\": did you mean \"person\"? (mappings: company, person, phone)")
    }

    func testPredicateAndSortErrorsPointAtTheColumn() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let predicate = message { _ = try ctx.fetch(FetchRequest(entity: "Person", predicate: "age > 30 AND agge < 90")) }
        XCTAssertEqual(predicate, """
            entity "Person" has no attribute or relationship "agge" (column 14): did you mean "age"? (attributes and relationships: \
            active, age, born, city, company, id, name, phones, score, tags, weight)
              age > 30 AND agge < 90
                           ^
            """)
        let windows = message { _ = try ctx.fetch(FetchRequest(entity: "Person", predicate: "age > 1 AND\n agge > 2")) }
        XCTAssertTrue(windows.hasSuffix("\n  age > 1 AND  agge > 2\n" + String(repeating: " ", count: 15) + "^"), windows)
        let syntax = message { _ = try ctx.fetch(FetchRequest(entity: "Person", predicate: "age >> 30")) }
        XCTAssertEqual(syntax, "expected a key path or a value, found \">\" at column 6\n  age >> 30\n       ^")
        let sort = message { _ = try ctx.fetch(FetchRequest(entity: "Person", sort: "name, -agee")) }
        XCTAssertTrue(sort.hasSuffix("(column 8): did you mean \"age\"? (attributes and relationships: active, age, born, city, company, id, name, phones, score, tags, weight)\n  name, -agee\n         ^"), sort)
    }
}
