/// An index over one attribute marked `"indexed": true`, for the objects of the entity that declares
/// it and its sub-entities: a hash from value to objects for equality and `IN`, and a sorted view for
/// ranges, rebuilt on the first range query after a change (so a query after an import sorts once).
/// Null values are not indexed.
struct AttributeIndex {
    private(set) var objects: [AttributeValue: [ObjectID]] = [:]
    private var sortedEntries: [(value: AttributeValue, object: ObjectID)]?

    mutating func insert(_ value: AttributeValue, _ object: ObjectID) {
        objects[value, default: []].append(object)
        sortedEntries = nil
    }

    mutating func remove(_ value: AttributeValue, _ object: ObjectID) {
        guard var list = objects[value], let position = list.firstIndex(of: object) else { return }
        list.remove(at: position)
        objects[value] = list.isEmpty ? nil : list
        sortedEntries = nil
    }

    func equal(to value: AttributeValue) -> [ObjectID] { objects[value] ?? [] }

    /// Builds the sorted view if a change invalidated it.
    mutating func prepareRanges() {
        guard sortedEntries == nil else { return }
        sortedEntries = objects.flatMap { value, list in list.map { (value, $0) } }
            .sorted { Self.order($0.value, $1.value) < 0 }
    }

    /// The objects whose value lies within the bounds (each inclusive or not; `nil` = unbounded).
    func range(lower: (AttributeValue, Bool)?, upper: (AttributeValue, Bool)?) -> [ObjectID]? {
        guard let entries = sortedEntries else { return nil }
        var start = 0
        if let (bound, inclusive) = lower {
            start = Self.firstIndex(in: entries) { inclusive ? Self.order($0, bound) >= 0 : Self.order($0, bound) > 0 }
        }
        var end = entries.count
        if let (bound, inclusive) = upper {
            end = Self.firstIndex(in: entries) { inclusive ? Self.order($0, bound) > 0 : Self.order($0, bound) >= 0 }
        }
        guard start < end else { return [] }
        return entries[start..<end].map(\.object)
    }

    /// The first position where `isPast` holds, for a predicate that is false and then true.
    private static func firstIndex(in entries: [(value: AttributeValue, object: ObjectID)],
                                   where isPast: (AttributeValue) -> Bool) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if isPast(entries[middle].value) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    private static func order(_ a: AttributeValue, _ b: AttributeValue) -> Int {
        PredicateValue.order(PredicateValue(a), PredicateValue(b), fold: .exact) ?? 0
    }
}
