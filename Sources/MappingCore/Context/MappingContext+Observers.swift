import MappingLock

/// The context's observers: each is told every non-empty change set, after the commit that made it,
/// on the committing thread, once the context's lock is released (so an observer may read the
/// context, or change it: that commit is reported in turn). A rollback tells no one.
final class ObserverList: Sendable {
    typealias Observer = @Sendable (ChangeSet) -> Void

    private let entries = Locked<(next: Int, list: [(token: Int, observer: Observer)])>((1, []))

    /// Adds an observer; returns its token.
    func add(_ observer: @escaping Observer) -> Int {
        entries.withLock { state in
            let token = state.next
            state.next += 1
            state.list.append((token, observer))
            return token
        }
    }

    /// Removes an observer; returns whether it was there.
    func remove(_ token: Int) -> Bool {
        entries.withLock { state in
            let before = state.list.count
            state.list.removeAll { $0.token == token }
            return state.list.count < before
        }
    }

    var isEmpty: Bool { entries.withLock { $0.list.isEmpty } }

    var current: [Observer] { entries.withLock { $0.list.map(\.observer) } }
}

extension MappingContext {
    /// Calls `observer` with the change set of every later commit on this context. Returns a token
    /// for `removeObserver`.
    @discardableResult
    public func addObserver(_ observer: @escaping @Sendable (ChangeSet) -> Void) -> Int {
        let token = observers.add(observer)
        updateCollecting()
        return token
    }

    /// Stops calling the observer `token` names; `false` if there is none (already removed).
    @discardableResult
    public func removeObserver(_ token: Int) -> Bool {
        let found = observers.remove(token)
        updateCollecting()
        return found
    }

    /// Change sets cost a walk over what each commit touched: collected only while someone listens.
    /// Decided under the graph's lock from the list as it is then, so concurrent adds and removes
    /// cannot leave it off while an observer is registered.
    private func updateCollecting() {
        graph.withLockIgnoringTransactions { $0.collectsChanges = !observers.isEmpty }
    }

    func notify(_ changes: [ChangeSet]) {
        let listening = observers.current
        for change in changes {
            for observer in listening { observer(change) }
        }
    }
}
