/// Fetches and counts on a graph that reads its store's rows as they are touched, run in the
/// database. Such a graph is only ever outside a transaction between calls, so the database holds
/// exactly what the graph does: the part of the predicate the database can test (`RowFilter`)
/// picks rows there. When that part is the whole predicate and the sort (if any) is one the
/// database runs as the evaluator does (`RowOrder`), the rows' keys are the answer, sorted and
/// paged by the database, and no row is read. Otherwise the rows it picks (a superset of the
/// matches) are read, and the fetch finishes in memory over just them.
extension ObjectStore {
    /// The objects `request` selects, found in the database; nil for a graph that holds every row.
    package mutating func fetchRows(_ request: FetchRequest, model: Model) throws(MappingError) -> [ObjectID]? {
        guard let source = session.rowSource else { return nil }
        let (entity, kinds, predicate, translated) = try rowQuery(request, model: model)
        let reader = GraphReader(model: model, store: self)
        let order: [RowOrder]?
        do throws(MappingError) {
            order = try request.sort.map { (text) throws(MappingError) in RowOrder.translate(try reader.sortKeys(text, entity: entity), entity: entity) }
                ?? []
        } catch {
            throw error.pointing(into: request.sort ?? "")
        }
        if let order, predicate == nil || translated?.exact == true {
            let keys = try source.keys(of: entity, kinds: kinds, where: translated?.filter, order: order, offset: request.offset,
                                       limit: request.limit)
            let found = objects(forKeys: keys, entity, source)
            // Read as it is walked, a batch of rows at a time.
            session.faultBatches.remember(found)
            return found
        }
        let keys = try source.keys(of: entity, kinds: kinds, where: translated?.filter, order: [], offset: 0, limit: nil)
        let candidates = objects(forKeys: keys, entity, source)
        try materialize(candidates, model: model)
        return try touching(model: model, probing: false) { (store, _) throws(MappingError) -> [ObjectID] in
            try GraphReader(model: model, store: store).fetch(request, among: candidates)
        }
    }

    /// How many objects `request` selects (its sort and page aside), counted by the database when
    /// it can test the whole predicate; nil when it cannot, or for a graph that holds every row.
    package mutating func countRows(_ request: FetchRequest, model: Model) throws(MappingError) -> Int? {
        guard let source = session.rowSource else { return nil }
        let (entity, kinds, predicate, translated) = try rowQuery(request, model: model)
        guard predicate == nil || translated?.exact == true else { return nil }
        return try source.count(of: entity, kinds: kinds, where: translated?.filter)
    }

    private func rowQuery(_ request: FetchRequest, model: Model) throws(MappingError)
        -> (Entity, [Entity], CompiledPredicate?, (filter: RowFilter, exact: Bool)?) {
        let entity = try GraphReader(model: model, store: self).entity(named: request.entity)
        let predicate = try request.predicate.map { (text) throws(MappingError) in
            try CompiledPredicate.compile(text, entity: entity, model: model, arguments: request.arguments)
        }
        let kinds = request.includesSubentities ? model.entities.filter { model.isKind($0.index, of: entity.index) } : [entity]
        return (entity, kinds, predicate, predicate.flatMap { $0.root.rowFilter(entity) })
    }

    /// For the faults among `objects`, the attribute `name` read from the database as one column,
    /// without reading their rows (`mapping_list_values` over a fetch's result); a fault linked as an
    /// entity without that attribute (it may be a sub-entity's) is read whole instead, and one whose
    /// row is gone becomes stale.
    package mutating func columnOfFaults(_ objects: [ObjectID], attribute name: String,
                                         model: Model) throws(MappingError) -> [ObjectID: AttributeValue?] {
        guard let source = session.rowSource else { return [:] }
        var byEntity: [Int: [(object: ObjectID, key: Int64)]] = [:]
        var whole: [ObjectID] = []
        for object in objects {
            guard let linkedAs = faultEntity(object), model.entities.indices.contains(linkedAs) else { continue }
            guard model.entities[linkedAs].attributeIndex(named: name) != nil, let key = source.key(of: object) else {
                whole.append(object)
                continue
            }
            byEntity[linkedAs, default: []].append((object, key))
        }
        try materialize(whole, model: model)
        var read: [ObjectID: AttributeValue?] = [:]
        for (linkedAs, faults) in byEntity.sorted(by: { $0.key < $1.key }) {
            let entity = model.entities[linkedAs]
            guard let attribute = entity.attributeIndex(named: name) else { continue }
            let values = try source.column(attribute, of: entity, keys: faults.map(\.key))
            for (object, key) in faults {
                if let value = values[key] { read[object] = value } else { dropFault(object) }
            }
        }
        return read
    }

    /// The object of each key: the one the graph has, else a new fault of `entity`.
    private mutating func objects(forKeys keys: [Int64], _ entity: Entity, _ source: any RowSource) -> [ObjectID] {
        var made: [Int64: ObjectID] = [:]
        var objects: [ObjectID] = []
        objects.reserveCapacity(keys.count)
        for key in keys {
            if let known = source.object(forKey: key), contains(known) {
                objects.append(known)
            } else {
                let fault = makeFault(entity.index)
                made[key] = fault
                objects.append(fault)
            }
        }
        if !made.isEmpty { source.attached([], as: made) }
        return objects
    }
}
