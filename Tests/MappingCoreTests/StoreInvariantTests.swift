import XCTest
@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// The invariant checker the suite runs after every call (`TestFixtures.context`) must be able to
/// fail: each test here breaks one invariant behind the store's back and expects it named.
final class StoreInvariantTests: XCTestCase {
    private let spec = """
    {"entities": {
       "Person": {"attributes": {"id": "integer", "name": {"type": "string", "indexed": true}},
                  "relationships": {"employer": {"entity": "Company", "inverse": "staff"}}},
       "Company": {"attributes": {"id": "integer"},
                   "relationships": {"staff": {"entity": "Person", "toMany": true, "inverse": "employer"}}}},
     "mappings": {"person": {"entity": "Person", "attributes": {"id": "id", "name": "name"},
                             "relationships": {"employer": {"mapping": "company"}}},
                  "company": {"entity": "Company", "attributes": {"id": "id"}}}}
    """
    private let payload = #"[{"id": 1, "name": "Ada", "employer": {"id": 10}}, {"id": 2, "name": "Bo", "employer": {"id": 10}}]"#

    /// A context without the suite's automatic check, so the broken store can be inspected here.
    private func graph() throws -> (MappingContext, [ObjectID]) {
        let ctx = try MappingContext(specJSON: spec)
        let people = try ctx.importJSON(mapping: "person", payload)
        XCTAssertEqual(people.count, 2)
        return (ctx, people)
    }

    private func violations(_ ctx: MappingContext, after damage: (inout ObjectStore) -> Void) throws -> [String] {
        try ctx.withGraph { (store: inout ObjectStore) throws(MappingError) -> [String] in
            damage(&store)
            return store.invariantViolations(model: ctx.model)
        }
    }

    func testASoundGraphHasNoViolations() throws {
        let (ctx, _) = try graph()
        XCTAssertEqual(try violations(ctx) { _ in }, [])
    }

    func testAnIdentityMissingFromItsMapIsFound() throws {
        let (ctx, people) = try graph()
        let found = try violations(ctx) { store in
            guard let record = store.record(people[0]), let identity = ObjectStore.identity(of: record.values, ctx.model.entities[record.entity])
            else { return XCTFail("Ada has no identity") }
            store.unregister(people[0], map: identity.map, key: identity.key)
        }
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertTrue(found.first?.contains("complete identity missing from its identity map") == true, "\(found)")
    }

    func testAnEntryUnderAKeyItsValuesDoNotMakeIsFound() throws {
        let (ctx, people) = try graph()
        let found = try violations(ctx) { store in
            store.register(people[0], map: 0, key: IdentityKey([.integer(99)]))
        }
        XCTAssertTrue(found.contains { $0.contains("under a key its values do not make") }, "\(found)")
    }

    func testAOneSidedRelationshipIsFound() throws {
        let (ctx, people) = try graph()
        let found = try violations(ctx) { store in
            // Ada's employer cleared on her side only: the company's staff still names her.
            store.setLink(nil, of: people[0], relationship: 0)
        }
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertTrue(found.first?.contains("Company.staff") == true, "\(found)")
    }

    func testAnIndexEntryForAValueTheObjectLacksIsFound() throws {
        let (ctx, people) = try graph()
        let found = try violations(ctx) { store in
            // Written into the table directly, without reindexing (setValue is what keeps indexes current).
            guard let place = store.place(of: people[0]) else { return XCTFail("Ada is not live") }
            store.tables[Int(place.entity)].setValue(.string("Cy"), 1, row: place.row, arena: store.arena)
        }
        XCTAssertTrue(found.contains { $0.contains("under a value it does not have") }, "\(found)")
        XCTAssertTrue(found.contains { $0.contains("lacks") }, "\(found)")
    }
}
