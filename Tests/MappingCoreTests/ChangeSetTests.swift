@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import MappingLock
import XCTest
import _MappingTestSupport

/// Change sets and observers: every commit reports exactly what it inserted, updated (with the
/// names that changed) and deleted; rollbacks, failed calls and commits that change nothing report
/// nothing.
final class ChangeSetTests: XCTestCase {
    private final class Recorder: Sendable {
        let sets = Locked<[ChangeSet]>([])
        func take() -> [ChangeSet] { sets.withLock { taken in defer { taken = [] }; return taken } }
    }

    private func observed() throws -> (MappingContext, Recorder) {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let recorder = Recorder()
        ctx.addObserver { change in recorder.sets.withLock { $0.append(change) } }
        return (ctx, recorder)
    }

    private func person(_ ctx: MappingContext, _ id: Int64) throws -> ObjectID {
        try XCTUnwrap(ctx.object(of: "Person", identity: .integer(id)))
    }

    private func company(_ ctx: MappingContext, _ id: Int64) throws -> ObjectID {
        try XCTUnwrap(ctx.object(of: "Company", identity: .integer(id)))
    }

    func testAnImportReportsWhatItInsertedAndAReimportNothing() throws {
        let (ctx, recorder) = try observed()
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        let sets = recorder.take()
        XCTAssertEqual(sets.count, 1)
        let inserted = sets.first?.inserted.map(\.entity).sorted()
        XCTAssertEqual(inserted, ["Company", "Company", "Person", "Person", "Phone", "Phone", "Phone"])
        XCTAssertEqual(sets.first?.updated, [])
        XCTAssertEqual(sets.first?.deleted, [])
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        XCTAssertEqual(recorder.take(), [], "a re-import that changes nothing reports nothing")
    }

    func testChangesNameTheAttributesAndBothSidesOfARelationship() throws {
        let (ctx, recorder) = try observed()
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        _ = recorder.take()
        let grace = try person(ctx, 2)
        try ctx.set(grace, attribute: "name", to: .string("Grace Hopper"))
        XCTAssertEqual(recorder.take(), [ChangeSet.expect(updated: [.init(object: grace, entity: "Person", changed: ["name"])])])

        try ctx.setRelated(grace, relationship: "company", to: [try company(ctx, 11)])
        let sets = recorder.take()
        XCTAssertEqual(sets.count, 1)
        XCTAssertEqual(Set(sets.first?.updated.map { "\($0.entity) \($0.changed)" } ?? []),
                       ["Person [\"company\"]", "Company [\"employees\"]"])
        XCTAssertEqual(sets.first?.updated.count, 3, "Grace and both companies")
        try ctx.set(grace, attribute: "name", to: .string("Grace Hopper"))
        XCTAssertEqual(recorder.take(), [], "setting the value it has changes nothing")
    }

    func testADeleteReportsTheIdentityAndTheOwnerThatLostIt() throws {
        let (ctx, recorder) = try observed()
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        _ = recorder.take()
        let phone = try XCTUnwrap(ctx.object(of: "Phone", identity: .string("+1-555")))
        try ctx.delete(phone)
        let sets = recorder.take()
        XCTAssertEqual(sets.first?.deleted, [.init(entity: "Phone", identity: .string("+1-555"))])
        XCTAssertEqual(sets.first?.updated, [.init(object: try person(ctx, 2), entity: "Person", changed: ["phones"])])
        XCTAssertEqual(sets.first?.inserted, [])
    }

    func testATransactionReportsOnceAtItsCommitAndARollbackNever() throws {
        let (ctx, recorder) = try observed()
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        _ = recorder.take()
        let ada = try person(ctx, 1)
        try ctx.begin()
        try ctx.set(ada, attribute: "age", to: .integer(37))
        let made = try ctx.create("Person", values: [JSONMember("id", .integer(3))])
        let gone = try ctx.create("Person", values: [JSONMember("id", .integer(4))])
        try ctx.delete(gone)
        XCTAssertEqual(recorder.take(), [], "nothing before the commit")
        try ctx.commit()
        XCTAssertEqual(recorder.take(), [ChangeSet.expect(inserted: [.init(object: made, entity: "Person")],
                                                          updated: [.init(object: ada, entity: "Person", changed: ["age"])])],
                       "an object made and deleted in the transaction appears nowhere")

        try ctx.begin()
        try ctx.set(ada, attribute: "age", to: .integer(38))
        try ctx.rollback()
        XCTAssertThrowsError(try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 9}, {"id": "x"}]}}"#))
        XCTAssertEqual(recorder.take(), [], "a rollback and a failed import report nothing")
    }

    func testACascadingDeleteReportsEveryObjectItTook() throws {
        let ctx = try TestFixtures.context("""
            {"entities": {
               "Owner": {"attributes": {"id": "integer"},
                         "relationships": {"pets": {"entity": "Pet", "toMany": true, "inverse": "owner", "deleteRule": "cascade"}}},
               "Pet": {"attributes": {"name": "string"}, "identification": "name",
                       "relationships": {"owner": {"entity": "Owner", "inverse": "pets"}}}},
             "mappings": {"owner": {"entity": "Owner", "attributes": {"id": "id"},
                                    "relationships": {"pets": {"mapping": "pet"}}},
                          "pet": {"entity": "Pet", "attributes": {"name": "name"}}}}
            """)
        _ = try ctx.importJSON(mapping: "owner", #"[{"id": 1, "pets": [{"name": "Rex"}, {"name": "Tom"}]}, {"id": 2}]"#)
        let recorder = Recorder()
        ctx.addObserver { change in recorder.sets.withLock { $0.append(change) } }
        try ctx.delete(try XCTUnwrap(ctx.object(of: "Owner", identity: .integer(1))))
        let sets = recorder.take()
        XCTAssertEqual(sets.count, 1)
        XCTAssertEqual(Set(sets.first?.deleted.map { "\($0.entity) \($0.identity.text())" } ?? []),
                       ["Owner 1", "Pet \"Rex\"", "Pet \"Tom\""])
        XCTAssertEqual(sets.first?.updated, [], "the objects that held them are gone too")
    }

    func testAChunkedImportReportsOnceWhenItEnds() throws {
        let (ctx, recorder) = try observed()
        let lines = (1...40).map { #"{"id": \#($0), "name": "p\#($0)", "company": {"id": \#($0 % 3)}}"# }
        let input = Array(lines.joined(separator: "\n").utf8)
        _ = try input.withUnsafeBytes { bytes in try ctx.importChunked(mapping: "person", bytes, format: .lines, chunkSize: 8) }
        let sets = recorder.take()
        XCTAssertEqual(sets.count, 1, "five chunks, one commit")
        XCTAssertEqual(sets.first?.inserted.count, 43, "40 people and 3 companies")
        let failing = Array((lines + [#"{"id": "x"}"#]).joined(separator: "\n").utf8)
        XCTAssertThrowsError(try failing.withUnsafeBytes { bytes in
            try ctx.importChunked(mapping: "person", bytes, format: .lines, chunkSize: 8)
        })
        XCTAssertEqual(recorder.take(), [], "a chunked import that fails reports nothing")
    }

    func testARemovedObserverHearsNothingAndObserversMayReadTheContext() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let names = Locked<[String]>([])
        let token = ctx.addObserver { change in
            // Called outside the context's lock: reading the context from here works.
            for inserted in change.inserted where inserted.entity == "Person" {
                if case .string(let name)? = try? ctx.value(of: inserted.object, attribute: "name").0 {
                    names.withLock { $0.append(name) }
                }
            }
        }
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        XCTAssertEqual(names.withLock { $0.sorted() }, ["Ada Lovelace", "Grace"])
        XCTAssertTrue(ctx.removeObserver(token))
        XCTAssertFalse(ctx.removeObserver(token))
        _ = try ctx.create("Person", values: [JSONMember("id", .integer(5)), JSONMember("name", .string("Lin"))])
        XCTAssertEqual(names.withLock { $0.count }, 2)
    }
}

private extension ChangeSet {
    static func expect(inserted: [Inserted] = [], updated: [Updated] = [], deleted: [Deleted] = []) -> ChangeSet {
        var set = ChangeSet()
        set.inserted = inserted
        set.updated = updated
        set.deleted = deleted
        return set
    }
}
