/// What `fetch` returns: the objects of an entity (sub-entities too) that match a predicate, sorted
/// by key paths, a page of them.
public struct FetchRequest: Sendable {
    public var entity: String
    /// Predicate text; `nil` matches every object.
    public var predicate: String?
    /// One JSON value per `%@` in the predicate, bound as values (never pasted into the text).
    public var arguments: [JSONValue]
    /// Comma-separated key paths, each optionally prefixed with `-` for descending: `"-age,name"`.
    public var sort: String?
    public var offset: Int
    /// At most this many objects; `nil` for all.
    public var limit: Int?
    /// Objects of the entity's sub-entities too (the default).
    public var includesSubentities: Bool

    public init(entity: String, predicate: String? = nil, arguments: [JSONValue] = [], sort: String? = nil,
                offset: Int = 0, limit: Int? = nil, includesSubentities: Bool = true) {
        self.includesSubentities = includesSubentities
        self.entity = entity
        self.predicate = predicate
        self.arguments = arguments
        self.sort = sort
        self.offset = offset
        self.limit = limit
    }
}

extension GraphReader {
    /// The objects `request` selects, from `candidates` (in creation order; a superset of the
    /// matches) when given, else from every object of the entity.
    package func fetch(_ request: FetchRequest, among candidates: [ObjectID]? = nil) throws(MappingError) -> [ObjectID] {
        let entity = try entity(named: request.entity)
        let predicate = try request.predicate.map { (text) throws(MappingError) in
            try CompiledPredicate.compile(text, entity: entity, model: model, arguments: request.arguments)
        }
        // An equality, IN or range test on an indexed attribute narrows the candidates without a scan.
        var objects = candidates ?? predicate.flatMap { indexCandidates($0.root, entity) } ?? objects(of: entity)
        if !request.includesSubentities {
            objects = objects.filter { store.entityIndex(of: $0) == entity.index }
        }
        if let predicate {
            let evaluator = PredicateEvaluator(store: store)
            objects = objects.filter { evaluator.matches($0, predicate) }
        }
        if let sort = request.sort {
            do throws(MappingError) {
                objects = try sorted(objects, by: sort, entity: entity)
            } catch {
                throw error.pointing(into: sort)
            }
        }
        let start = min(max(request.offset, 0), objects.count)
        // `objects.count - start` first: `start + limit` overflows for a limit near Int.max.
        let end = request.limit.map { start + min(objects.count - start, max($0, 0)) } ?? objects.count
        return Array(objects[start..<end])
    }

    /// The objects an index gives for the predicate (a superset of the matches, in creation order),
    /// or `nil` when no part of it can use an index.
    private func indexCandidates(_ node: CompiledPredicate.Node, _ entity: Entity) -> [ObjectID]? {
        switch node {
        case .and(let parts):
            for part in parts {
                if let found = indexCandidates(part, entity) { return found }
            }
            return nil
        case .comparison(let comparison):
            guard comparison.aggregate == nil, !comparison.fold.caseInsensitive, !comparison.fold.diacriticInsensitive,
                  case .path(let path) = comparison.left, !path.count, path.steps.count == 1,
                  case .attribute(let attribute)? = path.steps.first,
                  let key = store.indexKey(entity: entity.index, attribute: attribute), let index = store.index(key),
                  entity.attributes.indices.contains(attribute), case .value(let right) = comparison.right else { return nil }
            let type = entity.attributes[attribute].type
            func typed(_ value: PredicateValue) -> AttributeValue? { value.attributeValue(as: type) }
            var found: [ObjectID]
            switch comparison.op {
            case .equal:
                guard let value = typed(right) else { return nil }
                found = index.equal(to: value)
            case .in:
                guard let values = right.elements else { return nil }
                var typedValues: [AttributeValue] = []
                for value in values {
                    guard let converted = typed(value) else { return nil }
                    typedValues.append(converted)
                }
                found = typedValues.flatMap { index.equal(to: $0) }
            case .less, .lessOrEqual:
                guard let value = typed(right) else { return nil }
                guard let range = index.range(lower: nil, upper: (value, comparison.op == .lessOrEqual)) else { return nil }
                found = range
            case .greater, .greaterOrEqual:
                guard let value = typed(right) else { return nil }
                guard let range = index.range(lower: (value, comparison.op == .greaterOrEqual), upper: nil) else { return nil }
                found = range
            case .between:
                guard let bounds = right.elements, bounds.count == 2, let low = typed(bounds[0]), let high = typed(bounds[1]) else {
                    return nil
                }
                guard let range = index.range(lower: (low, true), upper: (high, true)) else { return nil }
                found = range
            default:
                return nil
            }
            return found.filter { object in
                guard let kind = store.entityIndex(of: object) else { return false }
                return model.isKind(kind, of: entity.index)
            }.sorted { store.sequence(of: $0) < store.sequence(of: $1) }
        default:
            return nil
        }
    }

    /// Sorts by each key in turn; nulls first when ascending; ties keep creation order.
    private func sorted(_ objects: [ObjectID], by text: String, entity: Entity) throws(MappingError) -> [ObjectID] {
        let keys = try sortKeys(text, entity: entity)
        let rows = objects.enumerated().map { index, object in
            (object, index, keys.map { $0.0.value(from: object, store: store) })
        }
        return rows.sorted { a, b in
            for (position, key) in keys.enumerated() {
                let order = Self.sortOrder(a.2[position], b.2[position])
                if order != 0 { return key.1 ? order > 0 : order < 0 }
            }
            return a.1 < b.1
        }.map(\.0)
    }

    /// The keys of a sort (`"-age,name"`), resolved from `entity`, each with whether it descends;
    /// errors name the column of the key that fails.
    func sortKeys(_ text: String, entity: Entity) throws(MappingError) -> [(ResolvedKeyPath, Bool)] {
        var keys: [(ResolvedKeyPath, Bool)] = []
        var column = 1
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = String(part).trimmingSpaces
            let descending = trimmed.hasPrefix("-")
            let name = descending || trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed
            guard !name.isEmpty else {
                throw MappingError(.predicate, "empty sort key at column \(column)", column: column)
            }
            var names = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            var count = false
            if names.last == "@count" {
                names.removeLast()
                count = true
            }
            // The column of the key's name: after the spaces and the sign before it.
            let leading = part.prefix { $0 == " " }.count + (name.count < trimmed.count ? 1 : 0)
            keys.append((try ResolvedKeyPath.resolve(names, count: count, from: entity, model: model, column: column + leading),
                         descending))
            column += part.count + 1
        }
        return keys
    }

    private static func sortOrder(_ a: PredicateValue, _ b: PredicateValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default: return PredicateValue.order(a, b, fold: .exact) ?? 0
        }
    }
}
