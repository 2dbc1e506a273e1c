/// The targets of a to-many relationship in order, with a hash index once the list grows, so that
/// "is it already there" stays O(1) when one company gathers a hundred thousand employees.
package struct LinkList: Equatable {
    package private(set) var ids: [ObjectID] = []
    private var index: Set<ObjectID>?

    private static let indexThreshold = 16

    init() {}

    init(_ ids: [ObjectID]) {
        self.ids.reserveCapacity(ids.count)
        for id in ids { append(id) }
    }

    var count: Int { ids.count }

    func contains(_ id: ObjectID) -> Bool {
        if let index { return index.contains(id) }
        return ids.contains(id)
    }

    /// Appends `id` unless it is already present; returns whether it was appended.
    @discardableResult
    mutating func append(_ id: ObjectID) -> Bool {
        if contains(id) { return false }
        ids.append(id)
        if index != nil {
            index?.insert(id)
        } else if ids.count > LinkList.indexThreshold {
            index = Set(ids)
        }
        return true
    }

    /// Removes `id` if present; returns whether it was there.
    @discardableResult
    mutating func remove(_ id: ObjectID) -> Bool {
        guard contains(id), let position = ids.firstIndex(of: id) else { return false }
        ids.remove(at: position)
        index?.remove(id)
        return true
    }

    package static func == (a: LinkList, b: LinkList) -> Bool { a.ids == b.ids }
}
