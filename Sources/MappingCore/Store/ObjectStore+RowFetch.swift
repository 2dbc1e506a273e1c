/// Fetches and counts on a graph that reads its store's rows as they are touched, run in the
/// database. Outside a transaction between calls the database holds exactly what the graph does:
/// the part of the predicate the database can test (`RowFilter`) picks rows there. When that part
/// is the whole predicate and the sort (if any) is one the database runs as the evaluator does
/// (`RowOrder`), the rows' keys are the answer, sorted and paged by the database, and no row is
/// read. Otherwise the rows it picks (a superset of the matches) are read, and the fetch finishes
/// in memory over just them. Inside a transaction that changed something, the database lacks its
/// changes: the rows are picked by the tests on their own columns only (what a row links to may
/// have changed), the objects the transaction made or changed join them, and the fetch finishes
/// in memory.
extension ObjectStore {
    /// The objects `request` selects, found in the database; nil for a graph that holds every row.
    package mutating func fetchRows(_ request: FetchRequest, model: Model) throws(MappingError) -> [ObjectID]? {
        guard let source = session.rowSource else { return nil }
        let (entity, kinds, predicate, translated) = try rowQuery(request, model: model)
        let order: [RowOrder]?
        do throws(MappingError) {
            // The reader (a copy of the graph) is gone before the graph reads rows.
            let reader = GraphReader(model: model, store: self)
            order = try request.sort.map { (text) throws(MappingError) in RowOrder.translate(try reader.sortKeys(text, entity: entity), entity: entity, model: model) }
                ?? []
        } catch {
            throw error.pointing(into: request.sort ?? "")
        }
        let uncommitted = journal.map { !$0.isEmpty } ?? false
        if !uncommitted, let order, predicate == nil || translated?.exact == true {
            let keys = try source.keys(of: entity, kinds: kinds, where: translated?.filter, order: order, offset: request.offset,
                                       limit: request.limit)
            let found = try objects(forKeys: keys, entity, source)
            // Read as it is walked, a batch of rows at a time.
            let faults = found.reduce(0) { $0 + (faultEntity($1) != nil ? 1 : 0) }
            session.faultBatches.remember(found, faults: faults)
            return found
        }
        // Inside a transaction, the database tests a row it did not change as memory does, unless
        // the test reads a row the transaction changed (a row linking to one): those rows are
        // picked too, and the objects the change touched join them (`uncommittedCandidates`).
        var filter = translated?.filter
        var touched: [ObjectID] = []
        if uncommitted, let open = journal {
            let (keys, objects) = uncommittedCandidates(open, source)
            touched = objects
            filter = filter.map { .or([$0, $0.reaching(keys)]) }
        }
        let keys = try source.keys(of: entity, kinds: kinds, where: filter, order: [], offset: 0, limit: nil)
        var candidates = try objects(forKeys: keys, entity, source)
        if uncommitted {
            // What the transaction touched may match in memory though its row does not (or it has
            // none yet): the objects of the fetched kinds, and faults linked as one of them (or
            // as an entity above them, which they may be).
            let related = Set(model.entities.indices.filter { kind in
                kinds.contains { model.isKind(kind, of: $0.index) || model.isKind($0.index, of: kind) }
            })
            var picked = Set(candidates)
            for object in touched where entityIndex(of: object).map(related.contains) == true && picked.insert(object).inserted {
                candidates.append(object)
            }
        }
        if let log = session.faultLog, candidates.contains(where: { faultEntity($0) != nil }) {
            // Inside a call's run (orphan deletion's scope): rows are read between runs, never
            // during one, which may hold changes the rows would contradict (a to-one the commit is
            // to clear). The run notes them, and the fetch finishes when it runs again.
            log.faults.formUnion(candidates.filter { faultEntity($0) != nil })
            return candidates
        }
        try materialize(candidates, model: model)
        if uncommitted {
            // Creation order, as the graph keeps it, once all are read (and their kinds known).
            let kinds = Set(kinds.map(\.index))
            candidates = candidates.filter { contains($0) && entityIndex(of: $0).map(kinds.contains) == true }
                .sorted { sequence(of: $0) < sequence(of: $1) }
        }
        return try touching(model: model, probing: false) { (store, _) throws(MappingError) -> [ObjectID] in
            try GraphReader(model: model, store: store).fetch(request, among: candidates)
        }
    }

    /// What an open transaction changed, for a fetch inside it: the live objects memory holds
    /// otherwise than the database — those it made or changed, and the other ends of the links it
    /// made or broke (a list not read that a row joined or left changed, though its owner was
    /// not noted) — and the keys of their rows and of the rows it deleted. A row the transaction
    /// did not change is tested by the database as by memory until its test reads one of these
    /// rows, found from its own (unchanged) row on; so those rows and these objects are all a
    /// fetch must test in memory. Each is found from what the transaction noted: the cost grows
    /// with the change, not with the store.
    private func uncommittedCandidates(_ open: Journal, _ source: any RowSource) -> (keys: [Int64], objects: [ObjectID]) {
        var keys: [Int64] = []
        var objects: [ObjectID] = []
        /// The links of a live object now (none for a list not read: changes to those are noted).
        func current(_ object: ObjectID) -> [Links] {
            guard let place = place(of: object) else { return [] }
            let table = tables[Int(place.entity)]
            return table.links.indices.map { table.links($0, row: place.row) ?? .one(nil) }
        }
        let (made, _) = open.touched()
        let (images, deleted, listMembers) = open.changes()
        for object in made {
            objects.append(object)
            for links in current(object) { objects += links.targets }
        }
        // A changed object, and the targets it gained or lost since its image (the whole list
        // would make a long list's every member a candidate for one member added).
        for (slot, image) in images {
            let object = liveID(slot: slot)
            if let object { objects.append(object) }
            let now = object.map(current) ?? []
            for (index, before) in image.links.enumerated() {
                let after = now.indices.contains(index) ? now[index] : .one(nil)
                if case .unread = before { continue }
                if case .unread = after { continue }
                let was = Set(before.targets), `is` = Set(after.targets)
                objects += was.symmetricDifference(`is`)
            }
        }
        for (slot, generation) in deleted {
            let object = ObjectID(tag: space.tag, generation: generation, slot: UInt32(truncatingIfNeeded: space.firstSlot + slot))
            if let key = source.key(of: object) { keys.append(key) }
        }
        objects += listMembers
        objects = Array(Set(objects.filter { contains($0) }))
        keys += objects.compactMap { source.key(of: $0) }
        return (keys, objects)
    }

    /// How many objects `request` selects (its sort and page aside), counted by the database when
    /// it can test the whole predicate; nil when it cannot, or for a graph that holds every row.
    package mutating func countRows(_ request: FetchRequest, model: Model) throws(MappingError) -> Int? {
        guard let source = session.rowSource else { return nil }
        let (entity, kinds, predicate, translated) = try rowQuery(request, model: model)
        guard predicate == nil || translated?.exact == true else { return nil }
        guard let open = journal, !open.isEmpty else { return try source.count(of: entity, kinds: kinds, where: translated?.filter) }
        // Inside a transaction that changed something, only a count of every row can be set right
        // by what it made and deleted; a predicate's is counted over the fetch.
        guard predicate == nil else { return nil }
        let counted = Set(kinds.map(\.index))
        let made = open.touched().created.filter { contains($0) && entityIndex(of: $0).map(counted.contains) == true }.count
        let deleted = open.deletedRows(firstSlot: space.firstSlot).filter(counted.contains).count
        return try source.count(of: entity, kinds: kinds, where: nil) + made - deleted
    }

    private func rowQuery(_ request: FetchRequest, model: Model) throws(MappingError)
        -> (Entity, [Entity], CompiledPredicate?, (filter: RowFilter, exact: Bool)?) {
        let entity = try GraphReader(model: model, store: self).entity(named: request.entity)
        let predicate = try request.predicate.map { (text) throws(MappingError) in
            try CompiledPredicate.compile(text, entity: entity, model: model, arguments: request.arguments)
        }
        let kinds = request.includesSubentities ? model.entities.filter { model.isKind($0.index, of: entity.index) } : [entity]
        return (entity, kinds, predicate, predicate.flatMap { $0.root.rowFilter(entity, model: model) })
    }

    /// For the faults among `objects`, the attribute `name` read from the database as one column,
    /// without reading their rows (`mapping_list_values` over a fetch's result); a fault linked as an
    /// entity without that attribute (it may be a sub-entity's) is read whole instead, and one whose
    /// row is gone becomes stale.
    package mutating func columnOfFaults(_ objects: [ObjectID], attribute name: String,
                                         model: Model) throws(MappingError) -> FaultColumn {
        guard let source = session.rowSource else { return FaultColumn() }
        // Per entity linked as: the attribute's index there, and its faults' positions in
        // `objects` with their keys.
        let attributes = model.entities.map { $0.attributeIndex(named: name) }
        var byEntity: [Int: [(position: Int, key: Int64)]] = [:]
        var whole: [ObjectID] = []
        for (position, object) in objects.enumerated() {
            guard let linkedAs = faultEntity(object), attributes.indices.contains(linkedAs) else { continue }
            guard attributes[linkedAs] != nil, let key = source.key(of: object) else {
                whole.append(object)
                continue
            }
            byEntity[linkedAs, default: []].append((position, key))
        }
        try materialize(whole, model: model)
        var read = FaultColumn(count: objects.count)
        for (linkedAs, faults) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let attribute = attributes[linkedAs] else { continue }
            let values = try source.column(attribute, of: model.entities[linkedAs], keys: faults.map(\.key))
            for (position, key) in faults {
                if let value = values[key] { read.set(value, at: position) } else { dropFault(objects[position]) }
            }
        }
        return read
    }

    /// The object of each key: the one the graph has, else a new fault of `entity`. A key listed
    /// twice is a damaged file (a table's rows are unique by key): two faults for one row would
    /// leave one without its key (found by fuzzing a file with flipped bytes).
    mutating func objects(forKeys keys: [Int64], _ entity: Entity, _ source: any RowSource) throws(MappingError) -> [ObjectID] {
        if keys.count > 1 {
            let ordered = keys.sorted()
            for index in ordered.indices.dropFirst() where ordered[index] == ordered[index - 1] {
                throw MappingError(.store, "the store lists one row of \(entity.name) twice: the file is damaged "
                                   + "(SQLite's PRAGMA integrity_check tells where)", attribute: entity.name)
            }
        }
        // Pairs, not a dictionary: the keys of a result are distinct, and a million of them in a
        // dictionary took tens of MB for the length of the call.
        var made: [(key: Int64, object: ObjectID)] = []
        var objects: [ObjectID] = []
        objects.reserveCapacity(keys.count)
        for key in keys {
            if let known = source.object(forKey: key) {
                if contains(known) {
                    objects.append(known)
                    continue
                }
                if deletedInTransaction(known) { continue }
            }
            let fault = makeFault(entity.index)
            made.append((key, fault))
            objects.append(fault)
        }
        if !made.isEmpty { source.attached([], as: made) }
        return objects
    }
}

/// The values of one attribute read from the database for the faults among a list of objects, by
/// the objects' positions in the list (an array, not a dictionary: a column of 10,000 faults paid
/// for three hashes per object).
package struct FaultColumn {
    /// Per position: nil when not read here, `.some(nil)` for a null.
    private var values: [AttributeValue??] = []

    init(count: Int = 0) { values = Array(repeating: nil, count: count) }

    mutating func set(_ value: AttributeValue?, at position: Int) {
        if values.indices.contains(position) { values[position] = .some(value) }
    }

    /// The value read for the object at `position`, or nil when it was not read here (`.some(nil)`
    /// for a null).
    func value(at position: Int) -> AttributeValue?? { values.indices.contains(position) ? values[position] : nil }
}
