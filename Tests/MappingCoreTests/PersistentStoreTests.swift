@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import MappingLock
import XCTest
import _MappingTestSupport

/// The core's side of a persistent store: what each commit hands it, and a failed write failing
/// the commit whole (the graph as it was), with a stand-in store.
final class PersistentStoreTests: XCTestCase {
    private final class Recording: PersistentStore, @unchecked Sendable {
        var commits: [StoreCommit] = []
        var failNext = false
        func write(_ commit: StoreCommit) throws(MappingError) {
            if failNext {
                failNext = false
                throw MappingError(.store, "the disk is full")
            }
            commits.append(commit)
        }
    }

    func testEachCommitHandsTheStoreItsRowsAndAFailedWriteFailsTheCommit() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let store = Recording()
        let loaded = try ctx.attach(store, loading: [
            StoredObject(key: 7, entity: try XCTUnwrap(ctx.model.entity(named: "Company")).index,
                         values: [.integer(10), .string("Loaded")], links: [[]]),
        ])
        let company = try XCTUnwrap(loaded[7])
        XCTAssertEqual(try ctx.value(of: company, attribute: "name").0, .string("Loaded"))
        XCTAssertEqual(try ctx.object(of: "Company", identity: .integer(10)), company, "loaded objects are in the identity map")
        XCTAssertTrue(store.commits.isEmpty, "loading is not a commit")

        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        XCTAssertEqual(store.commits.count, 1)
        XCTAssertEqual(store.commits.first?.inserted.count, 6, "2 people, 1 new company, 3 phones")
        XCTAssertEqual(store.commits.first?.updated.map(\.object), [company], "the loaded company got a name and employees")
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        XCTAssertEqual(store.commits.count, 1, "a commit that changes nothing writes nothing")

        let grace = try XCTUnwrap(ctx.object(of: "Person", identity: .integer(2)))
        store.failNext = true
        XCTAssertThrowsError(try ctx.set(grace, attribute: "name", to: .string("Lost"))) { error in
            XCTAssertEqual((error as? MappingError)?.code, .store)
        }
        XCTAssertEqual(try ctx.value(of: grace, attribute: "name").0, .string("Grace"), "the failed commit left the graph as it was")
        try ctx.delete(grace)
        XCTAssertEqual(store.commits.last?.deleted.map(\.object), [grace])
        XCTAssertThrowsError(try ctx.attach(store, loading: [])) { error in
            XCTAssertEqual((error as? MappingError)?.code, .misuse, "a store attaches only to an empty context")
        }
    }

    func testRowsSharingAnIdentityAreRefusedAndLeaveTheContextEmpty() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let company = try XCTUnwrap(ctx.model.entity(named: "Company")).index
        XCTAssertThrowsError(try ctx.attach(Recording(), loading: [
            StoredObject(key: 1, entity: company, values: [.integer(10), .string("First")], links: [[]]),
            StoredObject(key: 2, entity: company, values: [.integer(10), .string("Second")], links: [[]]),
        ])) { error in
            XCTAssertEqual((error as? MappingError)?.code, .store)
            XCTAssertTrue((error as? MappingError)?.message.contains("one Company's identity") == true, "\(error)")
        }
        XCTAssertEqual(try ctx.count(of: "Company"), 0, "nothing was made")
        XCTAssertNil(ctx.persistentStore, "nothing was attached")
    }

    /// A store other processes write: each call hands the context what they committed.
    private final class Shared: PersistentStore, @unchecked Sendable {
        var commits: [StoreCommit] = []
        var pending: [StoreRefresh] = []
        var asked: [Bool] = []
        var applied: [[Int64: ObjectID]] = []
        func write(_ commit: StoreCommit) throws(MappingError) { commits.append(commit) }
        func othersChanges(wait: Bool, newRows: Bool) throws(MappingError) -> StoreRefresh? {
            asked.append(wait)
            return pending.isEmpty ? nil : pending.removeFirst()
        }
        func applied(_ refresh: StoreRefresh, objects: [Int64: ObjectID]) { applied.append(objects) }
    }

    private func person(_ key: Int64, id: Int64, name: String, company: Int64?, _ ctx: MappingContext) throws -> StoredObject {
        let entity = try XCTUnwrap(ctx.model.entity(named: "Person"))
        var values = [AttributeValue?](repeating: nil, count: entity.attributes.count)
        values[0] = .integer(id)
        values[1] = .string(name)
        return StoredObject(key: key, entity: entity.index, values: values, links: [company.map { [$0] } ?? [], []])
    }

    /// A company row with its `employees`, as a database read gives them (a refresh too).
    private func company(_ key: Int64, id: Int64, name: String, employees: [Int64] = [], _ ctx: MappingContext) throws -> StoredObject {
        StoredObject(key: key, entity: try XCTUnwrap(ctx.model.entity(named: "Company")).index,
                     values: [.integer(id), .string(name)], links: [employees])
    }

    func testOtherProcessesCommitsAreAppliedBeforeTheNextCallAsACommitObserversSeeAndNothingIsWrittenBack() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let store = Shared()
        let loaded = try ctx.attach(store, loading: [try company(7, id: 10, name: "Old", employees: [8], ctx), try person(8, id: 1, name: "Ada", company: 7, ctx)])
        let (old, ada) = (try XCTUnwrap(loaded[7]), try XCTUnwrap(loaded[8]))
        XCTAssertEqual(try ctx.relatedObjects(of: old, relationship: "employees"), [ada])
        let seen = Locked<[ChangeSet]>([])
        ctx.addObserver { changes in seen.withLock { $0.append(changes) } }

        // Ada renamed and moved to a company made by another process.
        store.pending = [StoreRefresh(rows: [try person(8, id: 1, name: "Ada L.", company: 9, ctx), try company(9, id: 11, name: "New", employees: [8], ctx)],
                                      deleted: [], objects: [7: old, 8: ada])]
        XCTAssertEqual(try ctx.count(of: "Person"), 1)
        let made = try XCTUnwrap(ctx.object(of: "Company", identity: .integer(11)), "a new row becomes an object in the identity map")
        XCTAssertEqual(try ctx.value(of: ada, attribute: "name").0, .string("Ada L."))
        XCTAssertEqual([try ctx.relatedObject(of: ada, relationship: "company")].compactMap { $0 }, [made])
        XCTAssertEqual(try ctx.relatedObjects(of: old, relationship: "employees"), [], "the inverse followed the to-one")
        XCTAssertEqual(try ctx.relatedObjects(of: made, relationship: "employees"), [ada])
        XCTAssertEqual(store.applied.last?[9], made, "the store is told which object each row became")
        XCTAssertEqual(store.applied.last?[8], ada)
        XCTAssertTrue(store.commits.isEmpty, "what came from the database is not written back")
        let changes = try XCTUnwrap(seen.withLock { $0 }.first, "observers see the refresh as a commit")
        XCTAssertEqual(changes.inserted.map(\.object), [made])
        XCTAssertEqual(Set(changes.updated.map(\.object)), [ada, old])
        XCTAssertEqual(changes.updated.first { $0.object == ada }?.changed, ["name", "company"])

        // Two companies trade identities in one refresh, and the old one is then deleted.
        store.pending = [StoreRefresh(rows: [try company(7, id: 11, name: "Old", ctx), try company(9, id: 10, name: "New", employees: [8], ctx)],
                                      deleted: [], objects: [7: old, 9: made])]
        try ctx.refresh()
        XCTAssertEqual(store.asked.last, true, "an explicit refresh asks the database first")
        XCTAssertEqual(try ctx.object(of: "Company", identity: .integer(11)), old)
        XCTAssertEqual(try ctx.object(of: "Company", identity: .integer(10)), made)
        store.pending = [StoreRefresh(rows: [], deleted: [7], objects: [7: old])]
        XCTAssertEqual(try ctx.count(of: "Company"), 1)
        XCTAssertNil(try ctx.object(of: "Company", identity: .integer(11)))
        XCTAssertEqual(seen.withLock { $0 }.last?.deleted.map(\.entity), ["Company"])

        // Inside a transaction nothing is applied: it would be written back as the transaction's own.
        try ctx.begin()
        store.pending = [StoreRefresh(rows: [try person(8, id: 1, name: "Later", company: 9, ctx)], deleted: [], objects: [8: ada, 9: made])]
        try ctx.set(ada, attribute: "age", to: .integer(36))
        XCTAssertEqual(try ctx.value(of: ada, attribute: "name").0, .string("Ada L."))
        try ctx.commit()
        XCTAssertEqual(store.commits.count, 1)
        XCTAssertEqual(store.pending.count, 1, "still waiting for the next call")
        XCTAssertEqual(try ctx.value(of: ada, attribute: "name").0, .string("Later"))
        XCTAssertEqual(try ctx.value(of: ada, attribute: "age").0, nil, "the row as the database has it")
    }

    /// A context on a recording store with the people fixture imported (one commit), and Ada.
    private func peopleOnARecordingStore() throws -> (MappingContext, Recording, ObjectID) {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        let store = Recording()
        _ = try ctx.attach(store, loading: [])
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        return (ctx, store, try XCTUnwrap(ctx.object(of: "Person", identity: .integer(1))))
    }

    func testACommitNamesWhatEachToManyLostAndTheRowsOnlyMoved() throws {
        let (ctx, store, ada) = try peopleOnARecordingStore()
        let phones = try ctx.relatedObjects(of: ada, relationship: "phones")
        XCTAssertGreaterThanOrEqual(phones.count, 2)
        let first = try XCTUnwrap(phones.first)
        try ctx.removeRelated(ada, relationship: "phones", first)
        let commit = try XCTUnwrap(store.commits.last)
        let updated = try XCTUnwrap(commit.updated.first { $0.object == ada })
        XCTAssertEqual(updated.changed, ["phones"])
        let index = try XCTUnwrap(updated.entity.relationships.firstIndex { $0.name == "phones" })
        XCTAssertEqual(updated.before?[index], phones)
        XCTAssertEqual(Set(commit.moved.map(\.object)), Set(phones.dropFirst()), "the other phones moved up one place")
        XCTAssertTrue(commit.moved.allSatisfy { $0.changed.isEmpty && $0.before == nil })
        // Appending moves nobody.
        let added = try ctx.create("Phone", values: [JSONMember("number", .string("+1-new"))])
        try ctx.addRelated(ada, relationship: "phones", added)
        XCTAssertEqual(store.commits.last?.moved.count, 0)
        XCTAssertEqual(store.commits.last?.updated.first { $0.object == ada }?.before?[index], Array(phones.dropFirst()))
    }

    /// A commit's rows are read from the graph when the store reads them, not copied when the
    /// commit is made: they read the graph as the commit found it, also after later calls change
    /// it (a store that keeps a commit makes the graph copy what it changes), and hand a string's
    /// bytes where the graph keeps them.
    func testACommitsRowsReadTheGraphAsTheCommitFoundIt() throws {
        let (ctx, store, ada) = try peopleOnARecordingStore()
        let difference = try XCTUnwrap(ctx.object(of: "Company", identity: .integer(11)))
        let phones = try ctx.relatedObjects(of: ada, relationship: "phones")
        XCTAssertEqual(phones.count, 2)
        let first = try XCTUnwrap(store.commits.first)
        let row = try XCTUnwrap(first.inserted.first { $0.object == ada })
        let person = row.entity
        let name = try XCTUnwrap(person.attributes.firstIndex { $0.name == "name" })
        let age = try XCTUnwrap(person.attributes.firstIndex { $0.name == "age" })
        let company = try XCTUnwrap(person.relationships.firstIndex { $0.name == "company" })
        let phonesIndex = try XCTUnwrap(person.relationships.firstIndex { $0.name == "phones" })
        func text(_ bytes: UnsafeRawBufferPointer?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

        XCTAssertEqual(row.values.count, person.attributes.count)
        XCTAssertEqual(row.values[name], .string("Ada Lovelace"))
        XCTAssertEqual(text(row.values.textInPlace(name)), "Ada Lovelace")
        XCTAssertEqual(row.values[age], .integer(36))
        XCTAssertNil(row.values.textInPlace(age), "only a string value is handed as bytes")
        XCTAssertEqual(row.links.count, person.relationships.count)
        XCTAssertEqual(row.links.target(company), difference)
        XCTAssertEqual(row.links[phonesIndex], phones)
        let phoneRows = first.inserted.filter { phones.contains($0.object) }
        let owner = try XCTUnwrap(phoneRows.first?.entity.relationships.firstIndex { $0.name == "owner" })
        XCTAssertEqual(phoneRows.map { $0.links.target(owner) }, [ada, ada])
        XCTAssertEqual(Set(phoneRows.map { $0.positions[owner] }), [0, 1], "each phone's place in Ada's list")

        // Later calls change the graph; the commit kept reads it as it was.
        try ctx.set(ada, attribute: "name", to: .string("Ada, Countess of Lovelace"))
        try ctx.delete(try XCTUnwrap(phones.last))
        XCTAssertEqual(row.values[name], .string("Ada Lovelace"))
        XCTAssertEqual(text(row.values.textInPlace(name)), "Ada Lovelace")
        XCTAssertEqual(row.links[phonesIndex], phones, "the phone deleted since was live when the commit was made")
        let renamed = try XCTUnwrap(store.commits.dropFirst().first?.updated.first { $0.object == ada })
        XCTAssertEqual(renamed.changed, ["name"])
        XCTAssertEqual(text(renamed.values.textInPlace(name)), "Ada, Countess of Lovelace")
        XCTAssertEqual(store.commits.last?.updated.first { $0.object == ada }?.links[phonesIndex], Array(phones.dropLast()))
    }
}
