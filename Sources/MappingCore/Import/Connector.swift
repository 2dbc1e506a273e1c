/// Runs the connections of the objects an import mapped, once the whole payload is in the graph
/// (so the order of the payload does not matter), with RestKit's semantics:
/// all source values null ⇒ skipped (or cleared with `nullifyWhenSourceNil`); otherwise the
/// relationship is set to the matches, and no match clears it.
struct Connector {
    let model: Model

    func connect(_ object: ObjectID, _ connection: ConnectionPlan, store: inout ObjectStore) {
        guard let kind = store.entityIndex(of: object), model.entities.indices.contains(kind) else { return }
        let entity = model.entities[kind]
        guard entity.relationships.indices.contains(connection.relationship) else { return }
        let relationship = entity.relationships[connection.relationship]
        if let predicate = connection.sourcePredicate, !PredicateEvaluator(store: store).matches(object, predicate) {
            return
        }
        var targets: [ObjectID]
        switch connection.source {
        case .attributes(let pairs):
            guard let found = matches(object, entity, pairs, relationship, connection, store: &store) else {
                if connection.nullifyWhenSourceNil {
                    store.setTargets(of: object, relationship: connection.relationship, relationship, to: [], model: model)
                }
                return
            }
            targets = found
        case .keyPath(let steps):
            targets = follow(object, steps, store: store)
        }
        if let predicate = connection.destinationPredicate {
            let evaluator = PredicateEvaluator(store: store)
            targets = targets.filter { evaluator.matches($0, predicate) }
        }
        store.setTargets(of: object, relationship: connection.relationship, relationship, to: targets, model: model)
    }

    // MARK: By attributes

    /// The destination objects matching the source's values; `nil` when every source value is null.
    private func matches(_ object: ObjectID, _ entity: Entity, _ pairs: [(source: Int, destination: Int)], _ relationship: Relationship,
                         _ connection: ConnectionPlan, store: inout ObjectStore) -> [ObjectID]? {
        guard model.entities.indices.contains(relationship.destination) else { return [] }
        let destination = model.entities[relationship.destination]
        var wanted: [[AttributeValue?]] = []
        var allNull = true
        for pair in pairs {
            guard entity.attributes.indices.contains(pair.source), destination.attributes.indices.contains(pair.destination) else {
                return []
            }
            let type = destination.attributes[pair.destination].type
            switch store.attributeValue(of: object, pair.source) {
            case nil:
                wanted.append([nil])
            case .json(let json)? where json.text.utf8.first == UInt8(ascii: "["):
                allNull = false
                guard case .array(let elements) = json.value else { return [] }
                wanted.append(elements.map { Self.coerce($0, to: type) })
            case let value?:
                allNull = false
                wanted.append([Self.coerce(value.jsonValue, to: type)])
            }
        }
        if allNull { return nil }
        if pairs.count == 1, destination.identification == [pairs[0].destination], let map = destination.identityMap,
           let values = wanted.first {
            return lookUp(values, destination, map: map, connection, store: &store)
        }
        return scan(destination, pairs, wanted, connection, store: store)
    }

    /// Through the destination's identity map, in the order of the source values.
    private func lookUp(_ values: [AttributeValue?], _ destination: Entity, map: Int, _ connection: ConnectionPlan,
                        store: inout ObjectStore) -> [ObjectID] {
        var found: [ObjectID] = []
        for case let value? in values {
            // An object of another kind under the identity is not connected (and none is made: one
            // object per identity).
            guard let (object, isNew) = store.findOrCreate(destination, map: map, key: .single(value),
                                                          making: connection.createMissing ? .identified : nil) else { continue }
            if isNew { found.append(object); continue }
            if let kind = store.entityIndex(of: object), accepts(kind, destination, connection) { found.append(object) }
        }
        return found
    }

    /// Every object of the destination (and its sub-entities) whose values match every pair (on
    /// part of a store-backed graph, the matching rows are read first: `ObjectStore+Scan`).
    private func scan(_ destination: Entity, _ pairs: [(source: Int, destination: Int)], _ wanted: [[AttributeValue?]],
                      _ connection: ConnectionPlan, store: ObjectStore) -> [ObjectID] {
        let kinds = model.entities.filter { accepts($0.index, destination, connection) }.map(\.index)
        let tests = zip(pairs, wanted).map { pair, values in RowScan.Test(attribute: pair.destination, values: values) }
        return store.matching(RowScan(entity: destination.index, kinds: kinds, tests: tests), bytewise: false, model: model)
    }

    private func accepts(_ entity: Int, _ destination: Entity, _ connection: ConnectionPlan) -> Bool {
        connection.includesSubentities ? model.isKind(entity, of: destination.index) : entity == destination.index
    }

    private static func coerce(_ value: JSONValue, to type: AttributeType) -> AttributeValue? {
        guard case .value(let coerced)? = try? Coercion.coerce(value, reader: JSONValueReader(), to: type, depthLimit: 16) else {
            return nil
        }
        return coerced
    }

    // MARK: By key path

    /// The objects reached by following the relationships of `steps`, flattened, each once.
    private func follow(_ object: ObjectID, _ steps: [(entity: Int, relationship: Int)], store: ObjectStore) -> [ObjectID] {
        var current = [object]
        for step in steps {
            var next: [ObjectID] = []
            var seen = Set<ObjectID>()
            for source in current {
                for target in store.targets(of: source, step.relationship) where seen.insert(target).inserted {
                    next.append(target)
                }
            }
            current = next
        }
        return current
    }
}
