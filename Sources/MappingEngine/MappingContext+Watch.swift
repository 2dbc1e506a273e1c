import MappingCore
import MappingLock

extension MappingContext {
    /// Runs `request` now and after every commit that changed something; calls `callback` with the
    /// new results and positions whenever they differ or one of the objects in them was updated.
    /// Returns a token for `removeObserver`. The first results are not reported: read them with
    /// `fetch`. The request is checked now (`.name`, `.predicate` errors); were it to fail later,
    /// the watch reports nothing rather than failing the commit that triggered it.
    public func watch(_ request: FetchRequest,
                      _ callback: @escaping @Sendable (FetchChange) -> Void) throws(MappingError) -> Int {
        let last = Locked<[ObjectID]>(try fetch(request))
        return addObserver { [weak self] changes in
            guard let self else { return }
            let updated = Set(changes.updated.map(\.object))
            // Fetched under the watch's own lock: two threads' commits observed at once then report
            // one sequence of result lists, each change from the list the one before ended with.
            let change = last.withLock { old -> FetchChange? in
                guard let now = try? self.fetch(request) else { return nil }
                defer { old = now }
                return FetchChange(old: old, new: now, changedObjects: updated)
            }
            if let change, !change.isEmpty { callback(change) }
        }
    }
}
