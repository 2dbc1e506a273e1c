/// A store-backed graph that reads rows as they are touched. Opening reads no rows; a lookup by
/// identity reads the row it finds, reading an object reads its row, and a row read makes a fault
/// for every row it links to, so relationships read in as they are followed. Imports, changes and
/// serializations run on the rows they touch (`touching`), fetches and counts in the database
/// (`ObjectStore+RowFetch`), inside transactions too, scans through the rows holding the values
/// they look for (`ObjectStore+Scan`); the first call that needs the whole graph (a scan the
/// database cannot run) reads every row not read yet, and from then on the graph holds
/// everything, as an in-memory one does.
///
/// Rows are read inside transactions as outside them (`reading`): what a row read brings is the
/// database's, not a change, so a rollback keeps it; the row of an object the transaction deleted
/// is not read again, and a link to it keeps its handle, which is stale unless the transaction
/// rolls back. What the graph holds of a row is kept over what the database says: only rows the
/// graph has not read are filled from it.
extension ObjectStore {
    /// Whether the graph holds only the rows it has been asked for so far.
    package var isPartial: Bool { session.rowSource != nil }

    /// Reads the rows of the faults among `objects`, in one request. A fault whose row is gone (a
    /// one-way link that outlived its target, or a store changed outside libmapping) becomes stale,
    /// as such links are dropped when a whole store is read. One fault of a fetch's result is read
    /// with the faults that follow it there (`FaultBatches`).
    package mutating func materialize(_ objects: [ObjectID], model: Model) throws(MappingError) {
        guard let source = session.rowSource else { return }
        var wanted = objects
        if objects.count == 1, let object = objects.first, faultEntity(object) != nil {
            // Taken out while it is asked (it reads the graph), and put back: no copy is made.
            var batches = FaultBatches(base: space.firstSlot)
            swap(&batches, &session.faultBatches)
            wanted = batches.batch(from: object) { faultEntity($0) != nil }
            swap(&batches, &session.faultBatches)
        }
        var faults: [ObjectID] = []
        var keys: [Int64] = []
        var seen: Set<ObjectID> = []
        // Each fault once: a row asked for twice (in two batches) would read as two rows.
        for object in wanted where faultEntity(object) != nil && seen.insert(object).inserted {
            guard let key = source.key(of: object) else {
                throw MappingError(.failed, "object \(object) names a row its store does not know")
            }
            faults.append(object)
            keys.append(key)
        }
        guard !keys.isEmpty else { return }
        let rows = try source.rows(keys: keys)
        try reading { (store) throws(MappingError) in try store.fill(rows, from: source, model: model) }
        for object in faults where faultEntity(object) != nil { dropFault(object) }
        session.faultBatches.read(faults)
    }

    /// The object of `entity`'s identity map under `key`, read: the graph's, else the database's
    /// row with that identity, read now. Nil when neither has one. A graph that knows every
    /// identity keeps an evicted object's under its fault, which is read here (a fault's row
    /// that is gone leaves a stale handle, which finds nothing).
    package mutating func find(_ entity: Entity, key: IdentityKey, model: Model) throws(MappingError) -> ObjectID? {
        guard let map = entity.identityMap else { return nil }
        if let found = lookup(map: map, key: key) {
            guard faultEntity(found) != nil else { return found }
            try materialize([found], model: model)
            return contains(found) && faultEntity(found) == nil ? found : nil
        }
        guard !session.identitiesComplete else { return nil }
        try read(entity, identities: [key], model: model)
        return lookup(map: map, key: key)
    }

    /// Reads the rows of `entity`'s table that hold these identities and are not in the graph yet,
    /// in a few set queries.
    private mutating func read(_ entity: Entity, identities: [IdentityKey], model: Model) throws(MappingError) {
        guard let source = session.rowSource, !identities.isEmpty else { return }
        var values: [AttributeValue] = []
        values.reserveCapacity(identities.count * max(1, entity.identification.count))
        for key in identities {
            switch key {
            case .single(let value): values.append(value)
            case .compound(let parts): values += parts
            }
        }
        // A row read before but changed since holds another identity in the graph: `fill` keeps the
        // graph's values (it fills only rows the graph has not read).
        let rows = try source.rows(of: entity, identities: values)
        guard !rows.isEmpty else { return }
        try reading { (store) throws(MappingError) in try store.fill(rows, from: source, model: model) }
    }

    /// Runs `body`, which reads rows into the graph, outside the open transaction's journal (if
    /// any): the objects and faults rows make are the database's, which a rollback keeps
    /// (`Journal.noteRead`), and filling them saves no before-images.
    mutating func reading<T>(_ body: (inout ObjectStore) throws(MappingError) -> T) throws(MappingError) -> T {
        guard let open = journal else { return try body(&self) }
        open.noteReading()
        journal = nil
        readingFor = open
        defer {
            journal = open
            readingFor = nil
        }
        return try body(&self)
    }

    /// Runs `body` on the rows it touches. On a graph that holds part of its database's rows,
    /// `body` runs with a `FaultLog`: each fault it meets, each identity it looks up in vain and
    /// any reading of a whole entity (member lists, indexes) is noted. A run that noted something
    /// met the graph as it is not: it is discarded (a transaction in it refuses to commit and rolls
    /// back), what it noted is read — faults by key, identities in a few set queries, or every row
    /// when it needed a whole entity — and `body` runs again, until a run notes nothing. Each
    /// round reads rows or learns identities absent, so rounds are few; past `maxRounds` every row
    /// is read. With `probing`, runs before the last are probes (`body` is told, to leave out what
    /// its caller sees, such as callbacks), and the run that counts comes after a probe that noted
    /// nothing, so the caller sees one run. A graph holding everything runs `body` once, as is.
    ///
    /// Inside a transaction that spans calls, each run is a savepoint (`Savepoint`): a run that
    /// does not count is undone alone, and the transaction goes on as it was.
    package mutating func touching<T>(model: Model, probing: Bool,
                                      _ body: (inout ObjectStore, _ probe: Bool) throws(MappingError) -> T) throws(MappingError) -> T {
        // A call inside another's run joins it (its fault log notes for both).
        guard isPartial, session.faultLog == nil, journal == nil || session.explicitTransaction else {
            return try body(&self, false)
        }
        var absent: [Int: Set<IdentityKey>] = [:]
        var scansRead: Set<RowScan> = []
        var prefetched = false
        var probe = probing
        defer { session.listsReadWithRows = [] }
        for _ in 0..<Self.maxRounds {
            let log = FaultLog(absent: absent, scansRead: scansRead, prefetched: prefetched, probing: probe)
            let savepoint = journal.map { Savepoint(opening: $0, in: &self) }
            session.faultLog = log
            let outcome: Result<T, MappingError>
            do throws(MappingError) {
                outcome = .success(try body(&self, probe))
            } catch {
                outcome = .failure(error)
            }
            session.faultLog = nil
            prefetched = prefetched || log.walked
            let counts = log.isEmpty && !probe
            if let savepoint {
                if counts { return try savepoint.keep(outcome, in: &self) }
                savepoint.undo(in: &self)
            }
            if log.isEmpty {
                if !probe { return try outcome.get() }
                probe = false
                continue
            }
            guard !log.needsAll else { break }
            session.listsReadWithRows.formUnion(log.listsSet)
            try materialize(Array(log.faults), model: model)
            try readLists(Array(log.lists), model: model)
            for (map, met) in log.identities {
                guard let entity = model.entities.first(where: { $0.identityMap == map && !$0.identification.isEmpty }) else { continue }
                let keys = Set(met)
                try read(entity, identities: Array(keys), model: model)
                for key in keys where lookup(map: map, key: key) == nil { absent[map, default: []].insert(key) }
            }
            try read(log.scans, model: model)
            scansRead.formUnion(log.scans)
        }
        try loadAll(model: model)
        return try body(&self, false)
    }

    /// Rounds of `touching` before it reads every row instead.
    static var maxRounds: Int { 8 }

    /// Reads every row not read yet; from then on the graph holds everything (faults whose rows
    /// are gone become stale). Nothing for a graph that already does.
    package mutating func loadAll(model: Model) throws(MappingError) {
        guard let source = session.rowSource else { return }
        // Every row at once: the store checked identities and links across all of them as it read.
        let rows = try source.allRows()
        try reading { (store) throws(MappingError) in try store.fill(rows, from: source, model: model, checkedWhole: true) }
        source.rowsReleased()
        for slot in 0..<slotsUsed {
            if let fault = faultID(slot: slot) { dropFault(fault) }
        }
        sortMembers()
        session.rowSource = nil
    }

    /// Puts rows read from the database into the graph: each fault of theirs is filled, each row
    /// not seen before becomes an object; rows the graph holds already are left as the graph has
    /// them. Checked before anything changes, so a refused batch leaves the graph as it was: a row
    /// linked as an entity it is not, or two rows (or a row and an object) with one identity, is a
    /// store changed outside libmapping. `checkedWhole`: `rows` are every row of the store, already
    /// checked among themselves (one identity each, links to rows of the right entity).
    private mutating func fill(_ rows: [StoredObject], from source: any RowSource, model: Model,
                               checkedWhole: Bool = false) throws(MappingError) {
        // The identities of this batch's rows, by identity map: two rows with one identity are a
        // store changed by hand. Sized for the batch at once (growing it as rows came was most of
        // the check's cost).
        var taken: [Int: Set<IdentityKey>] = [:]
        var perEntity = Array(repeating: 0, count: model.entities.count)
        // Rows are named by their place in `rows` from here on, not copied: a copy of a row retains
        // each of its arrays, and rows were copied several times each (a visible share of reading).
        var reading: [(object: ObjectID?, row: Int, identity: (map: Int, key: IdentityKey)?)] = []
        reading.reserveCapacity(rows.count)
        // Objects read before whose one-to-manys were left unread: a read of every row fills those.
        var listsOnly: [(object: ObjectID, row: Int)] = []
        for row in rows.indices {
            let stored = rows[row]
            guard model.entities.indices.contains(stored.entity) else {
                throw MappingError(.failed, "the store names an entity the model lacks")
            }
            let entity = model.entities[stored.entity]
            var object = source.object(forKey: stored.key)
            if let known = object, deletedInTransaction(known) { continue }
            if let known = object, !contains(known) { object = nil }  // discarded by a rollback
            if let known = object, faultEntity(known) == nil {  // read already
                if checkedWhole, entity.relationships.indices.contains(where: { listIsUnread(known, $0) }) {
                    listsOnly.append((known, row))
                }
                continue
            }
            if let known = object, let linkedAs = faultEntity(known), !model.isKind(stored.entity, of: linkedAs) {
                throw MappingError(.store, "a link of the store leads to a \(entity.name), not a \(model.entities[linkedAs].name): "
                                   + "the store was changed by hand", attribute: entity.name)
            }
            let identity = Self.identity(of: stored.values, entity)
            if let identity {
                let holder = lookup(map: identity.map, key: identity.key)
                if (holder != nil && holder != object)
                    || (!checkedWhole && !taken[identity.map, default: Set(minimumCapacity: rows.count)].insert(identity.key).inserted) {
                    throw MappingError(.store, "two rows of the store hold one \(entity.name) identity (\(identity.key.text)): the store "
                                       + "was changed outside libmapping (its unique index dropped?); keep one of them", attribute: entity.name)
                }
            }
            for (index, relationship) in entity.relationships.enumerated() where !checkedWhole && stored.links.indices.contains(index) {
                for key in stored.links[index] {
                    guard let target = source.object(forKey: key), let kind = entityIndex(of: target),
                          !model.isKind(kind, of: relationship.destination) else { continue }
                    throw MappingError(.store, "\(entity.name).\(relationship.name) of a row links to a \(model.entities[kind].name), not a "
                                       + "\(model.entities[relationship.destination].name): the store was changed by hand",
                                       attribute: "\(entity.name).\(relationship.name)")
                }
            }
            reading.append((object, row, identity))
            perEntity[stored.entity] += 1
        }
        // Identity maps sized once for what is read, so they are not rehashed as they grow.
        for entity in model.entities where perEntity[entity.index] > 0 {
            reserve(for: entity, additional: perEntity[entity.index])
        }
        // The rows' keys and the faults made for keys they link to (a multiply hash: a dictionary's
        // SipHash per row and per link was a visible share of reading rows).
        var found = IntegerKeyTable()
        found.reserve(additional: reading.count)
        var filled: [(object: ObjectID, row: Int)] = []
        filled.reserveCapacity(reading.count)
        for (known, row, identity) in reading {
            let stored = rows[row]
            let entity = model.entities[stored.entity]
            let object = known ?? makeFault(stored.entity)
            if known == nil { found.set(object, for: stored.key) }
            fill(object, as: entity, values: stored.values, sequence: Int(truncatingIfNeeded: stored.key))
            if let identity { register(object, map: identity.map, key: identity.key) }
            filled.append((object, row))
        }
        // Links last, once every row of the batch has its object: a target not read yet becomes a
        // fault. Both sides of a relationship come from the database, so they agree as stored.
        // One-to-manys read by key come unread (`ObjectStore+Lists`).
        var unread: [ListFault] = []
        let toFill = filled.map { (object: $0.object, row: $0.row, onlyUnread: false) }
            + listsOnly.map { (object: $0.object, row: $0.row, onlyUnread: true) }
        for (object, row, onlyUnread) in toFill {
            let stored = rows[row]
            let entity = model.entities[stored.entity]
            for (index, relationship) in entity.relationships.enumerated() where stored.links.indices.contains(index) {
                // An object read before keeps its relationships as the graph has them, but its unread lists.
                if onlyUnread && !listIsUnread(object, index) { continue }
                if !checkedWhole && relationship.toMany && model.inverse(of: relationship)?.toMany == false {
                    setStoredLinks(.unread, of: object, relationship: index)
                    session.mayHoldUnreadLists = true
                    if !leavesUnreadWhenRead(relationship, model: model) || relationship.inverse.map({
                        session.listsReadWithRows.contains(ListKind(destination: relationship.destination, inverse: $0))
                    }) == true {
                        unread.append(ListFault(owner: object, relationship: index))
                    }
                    continue
                }
                if !relationship.toMany {
                    // A to-one: one target at most, no list made.
                    if let key = stored.links[index].first { setLink(target(key, relationship, &found, source), of: object, relationship: index) }
                    continue
                }
                var targets: [ObjectID] = []
                targets.reserveCapacity(stored.links[index].count)
                for key in stored.links[index] { targets.append(target(key, relationship, &found, source)) }
                if !targets.isEmpty || listIsUnread(object, index) { setStoredLinks(.many(LinkList(targets)), of: object, relationship: index) }
            }
        }
        // The batch itself when every row of it was filled (`filled` keeps the rows' order): no copy of each row.
        source.attached(filled.count == rows.count ? rows : filled.map { rows[$0.row] }, as: found.entries)
        // A context collecting change sets holds no list unread.
        try readLists(unread, model: model)
    }

    /// The object of the row `key` a row read links to through `relationship`: the graph's, else a
    /// fault made for it now (noted in `found`, so each key gets one). An object the open
    /// transaction deleted keeps its handle, which reads as no object, and as its object again
    /// if the transaction rolls back.
    mutating func target(_ key: Int64, _ relationship: Relationship, _ found: inout IntegerKeyTable,
                                 _ source: any RowSource) -> ObjectID {
        if let known = found[key] ?? source.object(forKey: key), contains(known) || deletedInTransaction(known) { return known }
        let fault = makeFault(relationship.destination)
        found.set(fault, for: key)
        return fault
    }
}

/// What a call run on part of a store-backed graph met that the graph has not read (see
/// `ObjectStore.touching`). A class, so that the graph's read accessors can note in it.
package final class FaultLog {
    /// Faults whose rows the call read or changed.
    var faults: Set<ObjectID> = []
    /// Identities looked up in vain, by identity map, as they were met (repeats kept: they become
    /// a set, sized at once, when they are read; a set grown as they came was rehashed as it grew,
    /// most of what noting them cost).
    var identities: [Int: [IdentityKey]] = [:]
    /// Whether the call read a whole entity (its member list, an index).
    var needsAll = false
    /// Identities the database is known not to hold, for this call.
    let absent: [Int: Set<IdentityKey>]
    /// Scans whose rows the call has read (`ObjectStore+Scan`).
    let scansRead: Set<RowScan>
    /// Whether an earlier run of the call walked its payload for the rows it needs
    /// (`Importer.prefetch`), which have been read since: a walk again would find them all.
    let prefetched: Bool
    /// Whether this run walked its payload so.
    var walked = false
    /// Whether the run is a probe, which never commits.
    let probing: Bool

    init(absent: [Int: Set<IdentityKey>], scansRead: Set<RowScan>, prefetched: Bool, probing: Bool) {
        self.absent = absent
        self.scansRead = scansRead
        self.prefetched = prefetched
        self.probing = probing
    }

    /// Scans the call ran whose rows are not read yet.
    var scans: Set<RowScan> = []

    /// To-manys whose targets the call read or changed, not read yet.
    var lists: Set<ListFault> = []
    /// The to-manys the call set whole (an import setting each person's phones): read with their
    /// owners' rows in the rounds after, rather than a round later each.
    var listsSet: Set<ListKind> = []

    var isEmpty: Bool { faults.isEmpty && identities.isEmpty && lists.isEmpty && scans.isEmpty && !needsAll }

    func noteMissing(map: Int, key: IdentityKey) {
        guard absent[map]?.contains(key) != true else { return }
        identities[map, default: []].append(key)
    }

    /// What a transaction throws instead of committing a run that noted something, or a probe.
    static let rowsToRead = MappingError(.failed, "the call met rows of its store it had not read (an internal retry that should not surface)")
}
