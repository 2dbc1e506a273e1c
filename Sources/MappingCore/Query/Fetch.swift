/// What `fetch` returns: the objects of an entity (sub-entities too) that match a predicate, sorted
/// by key paths, a page of them.
public struct FetchRequest: Sendable {
    public var entity: String
    /// Predicate text (SPEC.md §5); `nil` matches every object.
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
    func fetch(_ request: FetchRequest) throws(MappingError) -> [ObjectID] {
        let entity = try entity(named: request.entity)
        var objects = objects(of: entity)
        if !request.includesSubentities {
            objects = objects.filter { store.record($0)?.entity == entity.index }
        }
        if let text = request.predicate {
            let predicate = try CompiledPredicate.compile(text, entity: entity, model: model, arguments: request.arguments)
            let evaluator = PredicateEvaluator(store: store)
            objects = objects.filter { evaluator.matches($0, predicate) }
        }
        if let sort = request.sort {
            objects = try sorted(objects, by: sort, entity: entity)
        }
        let start = min(max(request.offset, 0), objects.count)
        let end = request.limit.map { min(objects.count, start + max($0, 0)) } ?? objects.count
        return Array(objects[start..<end])
    }

    /// Sorts by each key in turn; nulls first when ascending; ties keep creation order.
    private func sorted(_ objects: [ObjectID], by text: String, entity: Entity) throws(MappingError) -> [ObjectID] {
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
            keys.append((try ResolvedKeyPath.resolve(names, count: count, from: entity, model: model, column: column), descending))
            column += part.count + 1
        }
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

    private static func sortOrder(_ a: PredicateValue, _ b: PredicateValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default: return PredicateValue.order(a, b, fold: .exact) ?? 0
        }
    }
}
