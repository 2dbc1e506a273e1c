/// What an open transaction changed, so that a failure can put the graph back exactly as it was:
/// records as they were before their first change, objects created, identity-map entries replaced.
/// Objects not touched cost nothing, so a small import into a large graph rolls back cheaply.
/// A class: the store asks it about every value it changes, and as a struct behind an optional
/// each question copied (and retained) its tables. Copies of a store made while a transaction is
/// open only read (queries), so sharing it is safe.
///
/// A store-backed graph reads rows inside transactions too. Reading is not a change: the objects
/// and faults rows make are the database's, so a rollback keeps them (`noteRead`). A call inside a
/// transaction on such a graph runs in a savepoint, a journal of its own whose `parent` is the
/// transaction's: a run that met rows not read yet is undone alone, and a run that counts is
/// merged into the transaction (`ObjectStore.touching`).
final class Journal {
    struct IdentityChange {
        let map: Int
        let key: IdentityKey
        let previous: ObjectID?
    }

    // The mutable fields have no run-time exclusivity checks (as `StringArena`'s): each change of
    // a transaction notes itself here, and every access is a short call under the context's lock
    // that never overlaps another.

    /// The journal of the transaction a savepoint is in.
    let parent: Journal?
    @exclusivity(unchecked) var beforeImages: [Int: ObjectRecord] = [:]
    @exclusivity(unchecked) private(set) var created: [ObjectID] = []
    /// Slot numbers (as handles carry them) at or past this one did not exist when the transaction
    /// began, so their objects are new, but for the ones rows read took; only reused slots below
    /// it need a set (a cold import of many objects then adds none).
    let firstFreshSlot: Int
    @exclusivity(unchecked) private var reusedSlots: Set<Int> = []
    /// Slots at or past `firstFreshSlot` that rows read in the transaction took: not new.
    @exclusivity(unchecked) private var readSlots: Set<Int> = []
    /// Whether rows can be read while it is open (the graph reads its store's rows as touched,
    /// which it starts or stops doing only outside transactions). A constant, so that the graphs
    /// that never read rows ask nothing more of `isNew` (asked for every value changed), which a
    /// look at `readSlots` would cost in exclusivity checks.
    private let tracksReads: Bool
    @exclusivity(unchecked) var identityChanges: [IdentityChange] = []
    /// Per identity map, whether new objects took free keys in it without an `identityChanges`
    /// entry: a flag by map number, as it is noted for every new object (a set hashed each time).
    @exclusivity(unchecked) private var newEntryFlags: [Bool] = []

    /// The identity maps where new objects took free keys without an `identityChanges` entry.
    var mapsWithNewEntries: [Int] { newEntryFlags.indices.filter { newEntryFlags[$0] } }

    /// Notes that a new object took a free key in identity map `map`.
    @inline(__always)
    func noteNewEntry(map: Int) {
        if newEntryFlags.indices.contains(map) {
            newEntryFlags[map] = true
        } else if map >= 0 {
            newEntryFlags += repeatElement(false, count: map + 1 - newEntryFlags.count)
            newEntryFlags[map] = true
        }
    }
    /// Slots of objects deleted in the transaction, with the generation their handles carry.
    @exclusivity(unchecked) private(set) var deleted: [(slot: Int, generation: UInt16)] = []
    /// `deleted`, for lookups: a row read in the transaction must not bring such an object back.
    @exclusivity(unchecked) private var deletedGenerations: [Int: UInt16] = [:]
    /// Member list lengths and live counts when the transaction began.
    let memberCounts: [Int]
    let liveCounts: [Int]
    /// Whether rows were read while it was open: their objects joined the member lists among the
    /// transaction's own, so a rollback cannot just cut the lists back to `memberCounts`.
    private(set) var sawReads = false

    init(firstFreshSlot: Int, memberCounts: [Int], liveCounts: [Int], tracksReads: Bool, parent: Journal? = nil) {
        self.firstFreshSlot = firstFreshSlot
        self.tracksReads = tracksReads
        self.memberCounts = memberCounts
        self.liveCounts = liveCounts
        self.parent = parent
    }

    func isNew(_ id: ObjectID) -> Bool { isNew(slot: id.slot) }

    /// `isNew` by the slot number a handle carries.
    func isNew(slot: Int) -> Bool {
        slot >= firstFreshSlot ? !tracksReads || !readSlots.contains(slot) : reusedSlots.contains(slot)
    }

    /// Whether a change to `id` (in `slot`) must first save its before-image.
    @inline(__always)
    func needsImage(_ id: ObjectID, slot: Int) -> Bool { !isNew(id) && beforeImages[slot] == nil }

    func noteCreated(_ id: ObjectID) {
        created.append(id)
        if id.slot < firstFreshSlot {
            reusedSlots.insert(id.slot)
        } else if tracksReads {
            readSlots.remove(id.slot)
        }
    }

    /// This journal and the ones around it, innermost first.
    private var chain: some Sequence<Journal> { sequence(first: self, next: \.parent) }

    /// A fault made for a row read while this journal (or a savepoint in it) is open: not new, in
    /// this journal and the ones around it.
    func noteRead(_ id: ObjectID) {
        for open in chain {
            open.sawReads = true
            if id.slot >= open.firstFreshSlot { open.readSlots.insert(id.slot) } else { open.reusedSlots.remove(id.slot) }
        }
    }

    /// Notes that rows were read (objects filled) while this journal is open.
    func noteReading() {
        for open in chain { open.sawReads = true }
    }

    func noteDeleted(slot: Int, generation: UInt16) {
        deleted.append((slot, generation))
        deletedGenerations[slot] = generation
    }

    /// Whether the object in storage slot `slot` whose handles carry `generation` was deleted in
    /// this journal or one around it.
    func deletedHere(slot: Int, generation: UInt16) -> Bool {
        chain.contains { $0.deletedGenerations[slot] == generation }
    }

    /// Per object that joined an owner's list not read (`ObjectStore+Lists`), when it last did:
    /// the database appends them in that order, as memory would have.
    private(set) var listJoins: [ObjectID: Int] = [:]
    /// Rows not read that left a one-to-many this transaction changed (a phone a person lost): the
    /// database clears their to-one without reading them (`ObjectStore+Lists`).
    private(set) var unlinked: [(object: ObjectID, relationship: Int, owner: ObjectID)] = []

    func noteUnlink(_ id: ObjectID, relationship: Int, owner: ObjectID) { unlinked.append((id, relationship, owner)) }
    private var joins = 0

    func noteListJoin(_ id: ObjectID) {
        listJoins[id] = joins
        joins += 1
    }

    /// Takes in what a savepoint in it recorded, as if this journal had recorded it: a record
    /// this journal has no image of keeps the savepoint's (it is the record as the transaction
    /// found it), unless the transaction made the object.
    func merge(_ savepoint: Journal, firstSlot: Int) {
        for (slot, image) in savepoint.beforeImages where beforeImages[slot] == nil && !isNew(slot: firstSlot + slot) {
            beforeImages[slot] = image
        }
        for id in savepoint.created { noteCreated(id) }
        identityChanges.append(contentsOf: savepoint.identityChanges)
        for map in savepoint.mapsWithNewEntries { noteNewEntry(map: map) }
        for (slot, generation) in savepoint.deleted { noteDeleted(slot: slot, generation: generation) }
        for (id, _) in savepoint.listJoins.sorted(by: { $0.value < $1.value }) { noteListJoin(id) }
        unlinked.append(contentsOf: savepoint.unlinked)
        if savepoint.sawReads { sawReads = true }
    }

    /// What the transaction changed, for a fetch that must find every object whose match it may
    /// have changed (this journal and the ones around it): the before-images (of objects changed
    /// or deleted), the objects deleted (slot and generation), and the objects whose lists not read
    /// they joined or left.
    func changes() -> (images: [(slot: Int, record: ObjectRecord)], deleted: [(slot: Int, generation: UInt16)], listMembers: [ObjectID]) {
        var images: [(slot: Int, record: ObjectRecord)] = []
        var deleted: [(slot: Int, generation: UInt16)] = []
        var listMembers: [ObjectID] = []
        for open in chain {
            images.append(contentsOf: open.beforeImages.map { ($0.key, $0.value) })
            deleted.append(contentsOf: open.deleted)
            listMembers.append(contentsOf: open.listJoins.keys)
            for (object, _, owner) in open.unlinked { listMembers += [object, owner] }
        }
        return (images, deleted, listMembers)
    }

    /// Whether the transaction changed nothing yet (this journal and the ones around it).
    var isEmpty: Bool {
        chain.allSatisfy { open in
            open.created.isEmpty && open.beforeImages.isEmpty && open.deleted.isEmpty && open.identityChanges.isEmpty
                && open.listJoins.isEmpty && open.unlinked.isEmpty
        }
    }

    /// The entity of each row the transaction deleted (objects it made and deleted have none), by
    /// their before-images; `firstSlot` turns storage slots into handles' slot numbers.
    func deletedRows(firstSlot: Int) -> [Int] {
        var root = self
        var images: [Int: ObjectRecord] = [:]
        var slots: [Int] = []
        for open in chain {
            root = open
            images.merge(open.beforeImages) { kept, _ in kept }
            slots.append(contentsOf: open.deleted.map(\.slot))
        }
        return slots.compactMap { slot in root.isNew(slot: firstSlot + slot) ? nil : images[slot]?.entity }
    }

    /// The objects the transaction made, and the storage slots of those it changed, live or not
    /// (this journal and the ones around it).
    func touched() -> (created: [ObjectID], changedSlots: Set<Int>) {
        var made: [ObjectID] = []
        var changed: Set<Int> = []
        for open in chain {
            made.append(contentsOf: open.created)
            changed.formUnion(open.beforeImages.keys)
        }
        return (made, changed)
    }
}

extension ObjectStore {
    /// Runs `body` as one all-or-nothing change: if it throws, or leaves a relationship outside its
    /// `minCount`/`maxCount`, every change it made is undone before the error is thrown.
    /// Inside a transaction opened with `begin()`, `body` joins it, and a failure rolls the whole
    /// open transaction back. The library's own transaction (a chunked import's) then ends; the
    /// caller's stays open but refuses every change (`abortedBy`) until the caller ends it with
    /// `rollback` (or `commit`, which says nothing was committed), as PostgreSQL keeps a failed
    /// transaction: calls after the failure are never committed one by one outside it.
    package mutating func transaction<T>(model: Model,
                                 _ body: (inout ObjectStore) throws(MappingError) -> T) throws(MappingError) -> T {
        if session.explicitTransaction {
            if let aborted = session.abortedBy {
                throw MappingError(.misuse, "the open transaction was rolled back by an earlier failure (\(aborted.message)) and "
                                   + "takes no more changes: end it with rollback, then begin again")
            }
            do {
                return try body(&self)
            } catch {
                rollback()
                guard session.transactionIsCallers else {
                    session.explicitTransaction = false
                    throw error
                }
                session.abortedBy = error
                throw MappingError(error.code, error.message + " (the open transaction was rolled back)", path: error.path,
                                   attribute: error.attribute, line: error.line, column: error.column, position: error.position)
            }
        }
        open()
        do {
            let result = try body(&self)
            try commit(model: model)
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Opens a transaction that spans calls until `commit` or `rollback`.
    package mutating func begin(byCaller: Bool = true) throws(MappingError) {
        guard !session.explicitTransaction else { throw MappingError(.misuse, "a transaction is already open on this context") }
        open()
        session.explicitTransaction = true
        session.transactionIsCallers = byCaller
        session.abortedBy = nil
    }

    /// Ends the open transaction, keeping its changes if the counts of every relationship it touched
    /// are within their bounds; otherwise rolls it back and throws.
    package mutating func commitTransaction(model: Model) throws(MappingError) {
        guard session.explicitTransaction else { throw MappingError(.misuse, "no transaction is open on this context") }
        session.explicitTransaction = false
        if let aborted = session.abortedBy {
            session.abortedBy = nil
            throw MappingError(aborted.code, "nothing was committed: the transaction was rolled back when a call inside it failed: "
                               + aborted.message, path: aborted.path, attribute: aborted.attribute, line: aborted.line,
                               column: aborted.column, position: aborted.position)
        }
        do {
            try commit(model: model)
        } catch {
            rollback()
            throw error
        }
    }

    package mutating func rollbackTransaction() throws(MappingError) {
        guard session.explicitTransaction else { throw MappingError(.misuse, "no transaction is open on this context") }
        session.explicitTransaction = false
        session.abortedBy = nil  // already rolled back: this ends it
        rollback()
    }

    private mutating func open() {
        // In handles' slot numbers, as `isNew` reads them.
        journal = Journal(firstFreshSlot: space.firstSlot + slotsUsed, memberCounts: memberCounts, liveCounts: liveCounts,
                          tracksReads: isPartial)
    }

    private mutating func commit(model: Model) throws(MappingError) {
        guard let committed = journal else { return }
        // Other processes' commits were checked where they were made; applying them must not fail
        // (they would stay unapplied, and every later call would fail with them).
        if !session.applyingStoreChanges { try checkCounts(committed, model: model) }
        if session.persistent != nil || session.collectsChanges {
            let changes = changeSet(of: committed, model: model)
            if session.collectsChanges, !session.applyingStoreChanges, !changes.isEmpty, let refusal = session.changeRefusal { throw refusal }
            if let persistent = session.persistent, !session.applyingStoreChanges {
                // A call that ran on part of the graph (it met rows not read yet), or that only
                // probed which rows it needs, is never written: it rolls back and runs again (its
                // rows are not even made).
                if let log = session.faultLog, log.probing || !log.isEmpty { throw FaultLog.rowsToRead }
                // Written before the commit is final: a failed write fails the commit.
                let rows = storeCommit(of: committed, changes: changes, model: model)
                if !rows.isEmpty {
                    do throws(MappingError) {
                        try persistent.write(rows)
                    } catch {
                        // The write met rows the graph holds unread (another process inserted an
                        // identity this call made): they are read, and the call runs again.
                        if let log = session.faultLog, let met = session.rowSource?.faultsMet(), !met.isEmpty {
                            log.faults.formUnion(met)
                            throw FaultLog.rowsToRead
                        }
                        throw error
                    }
                }
            }
            if session.collectsChanges && !changes.isEmpty { session.committedChanges.append(changes) }
        }
        journal = nil
        release(slots: committed.deleted.map(\.slot))
        compactMembers()
    }

    /// `minCount`/`maxCount` of every relationship of every object the transaction changed or made.
    private func checkCounts(_ journal: Journal, model: Model) throws(MappingError) {
        guard model.hasCountRules else { return }  // most models have none: skip visiting every object
        let touched = journal.created + journal.beforeImages.keys.compactMap { liveID(slot: $0) }
        for object in touched {
            guard let kind = entityIndex(of: object), model.entities.indices.contains(kind) else { continue }
            let entity = model.entities[kind]
            for (index, relationship) in entity.relationships.enumerated()
            where relationship.minCount != nil || relationship.maxCount != nil {
                let count = targets(of: object, index).count
                if let low = relationship.minCount, count < low {
                    throw MappingError(.constraint, "\(entity.name).\(relationship.name) holds \(count) object(s), fewer than its minCount \(low)",
                                       attribute: entity.name + "." + relationship.name)
                }
                if let high = relationship.maxCount, count > high {
                    throw MappingError(.constraint, "\(entity.name).\(relationship.name) holds \(count) object(s), more than its maxCount \(high)",
                                       attribute: entity.name + "." + relationship.name)
                }
            }
        }
    }

    fileprivate mutating func rollback() {
        guard let journal else { return }
        self.journal = nil
        for change in journal.identityChanges.reversed() {
            restoreIdentity(map: change.map, key: change.key, to: change.previous)
        }
        // Entries that name objects made in the transaction did not exist before it: no object
        // of the graph as it was can be in a slot the transaction made or reused.
        for map in journal.mapsWithNewEntries {
            purgeIdentities(map: map) { journal.isNew($0) }
        }
        for (slot, generation) in journal.deleted.reversed() {
            undelete(slot: slot, generation: generation)
        }
        for (slot, record) in journal.beforeImages {
            restore(slot: slot, to: record)
        }
        for id in journal.created.reversed() {
            discardCreated(id)
        }
        let base = space.firstSlot
        restoreMembers(counts: journal.memberCounts, liveCounts: journal.liveCounts, keepingReads: journal.sawReads) { id in
            journal.parent?.deletedHere(slot: id.slot - base, generation: id.generation) ?? false
        }
    }
}

/// One run of a call inside a transaction that spans calls, on a graph that reads its store's
/// rows as they are touched (`ObjectStore.touching`): the run's changes go to a journal of their
/// own, and the transaction's session flags are kept, so that a run that does not count (it met
/// rows not read yet, or it was a probe) is undone alone and the transaction goes on as it was.
struct Savepoint {
    private let outer: Journal
    private let explicitTransaction: Bool
    private let transactionIsCallers: Bool
    private let abortedBy: MappingError?

    init(opening outer: Journal, in store: inout ObjectStore) {
        self.outer = outer
        explicitTransaction = store.session.explicitTransaction
        transactionIsCallers = store.session.transactionIsCallers
        abortedBy = store.session.abortedBy
        store.journal = Journal(firstFreshSlot: store.space.firstSlot + store.slotsUsed, memberCounts: store.memberCounts,
                                liveCounts: store.liveCounts, tracksReads: true, parent: outer)
    }

    /// Ends the run that counts. What it changed joins the transaction; a run whose failure rolled
    /// its changes back (a change fails the transaction it is in) rolls back the rest of the
    /// transaction too, as a failing call of a graph in memory does.
    func keep<T>(_ outcome: Result<T, MappingError>, in store: inout ObjectStore) throws(MappingError) -> T {
        if let savepoint = store.journal {
            outer.merge(savepoint, firstSlot: store.space.firstSlot)
            store.journal = outer
        } else {
            store.journal = outer
            store.rollback()
        }
        return try outcome.get()
    }

    /// Undoes a run that does not count, and what its failure did to the transaction's flags.
    func undo(in store: inout ObjectStore) {
        if store.journal != nil { store.rollback() }
        store.journal = outer
        store.session.explicitTransaction = explicitTransaction
        store.session.transactionIsCallers = transactionIsCallers
        store.session.abortedBy = abortedBy
    }
}
