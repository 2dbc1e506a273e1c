/// The importer's last steps, once every representation is mapped: connections, tombstones, orphans.
extension Importer {
    /// After the payload is mapped: connections by foreign key (each object once), then
    /// tombstones (mapped objects matching their mapping's deletionPredicate are deleted), then
    /// orphans (objects in the orphan scope this import did not touch), then the last progress call.
    mutating func runPostPass() throws(MappingError) {
        let connector = Connector(model: model)
        var connected = Set<PendingConnection>()
        for pending in pendingConnections where connected.insert(pending).inserted {
            for connection in spec.plan(pending.mapping)?.connections ?? [] {
                connector.connect(pending.object, connection, store: &store)
            }
        }
        for pending in connected {
            guard let predicate = spec.plan(pending.mapping)?.deletionPredicate, store.contains(pending.object),
                  PredicateEvaluator(store: store).matches(pending.object, predicate) else { continue }
            try store.delete(pending.object, model: model)
        }
        if let scope = options.orphanScope { try deleteOrphans(scope.entity, scope.predicate) }
        // The last call says the import is done: what was counted in advance but not mapped (a
        // representation skipped as unmodified does not map what it nests) is not outstanding.
        options.onProgress?(mappedCount, knownInAdvance == nil ? knownCount : mappedCount)
    }

    /// Deletes the objects in the scope that this import did not touch.
    mutating func deleteOrphans(_ entityName: String, _ text: String?) throws(MappingError) {
        guard let entity = model.entity(named: entityName) else {
            throw MappingError(.name, "unknown entity \"\(entityName)\" for orphan deletion")
        }
        let predicate = try text.map { (text) throws(MappingError) in
            try CompiledPredicate.compile(text, entity: entity, model: model, arguments: [])
        }
        // A graph that reads its store's rows as they are touched asks the database for the scope
        // (a fault among them makes the run read it and map again).
        let inScope = try store.fetchRows(FetchRequest(entity: entity.name, predicate: text), model: model)
        // The reader and evaluator (copies of the graph) are gone before the first delete, which
        // would otherwise copy every array of the graph.
        let orphans: [ObjectID]
        do {
            let evaluator = PredicateEvaluator(store: store)
            orphans = (inScope ?? GraphReader(model: model, store: store).objects(of: entity)).filter { object in
                !touched.contains(object) && (predicate.map { evaluator.matches(object, $0) } ?? true)
            }
        }
        for orphan in orphans where store.contains(orphan) {
            try store.delete(orphan, model: model)
        }
    }
}
