import MappingCore
import MappingLock

/// The context's observers: each is told every non-empty change set, after the commit that made it,
/// on the committing thread, once the context's lock is released (so an observer may read the
/// context, or change it: that commit is reported in turn). A rollback tells no one.
///
/// Registrations are kept by token (tokens only grow, so token order is registration order):
/// adding, removing and asking whether one is still there cost O(1) amortized, whatever the number
/// of observers; removed tokens leave the order list in batches.
final class ObserverList: Sendable {
    typealias Observer = @Sendable (ChangeSet) -> Void

    private struct State {
        var next = 1
        var live: [Int: Observer] = [:]
        /// Tokens in registration order, some of them removed since (dropped once they are half).
        var order: [Int] = []
        /// Set by a removal that could not update the graph's `collectsChanges` (see `removeLater`).
        var collectingIsStale = false
    }

    private let state = Locked(State())

    /// Adds an observer; returns its token.
    func add(_ observer: @escaping Observer) -> Int {
        state.withLock { state in
            let token = state.next
            state.next += 1
            state.live[token] = observer
            state.order.append(token)
            return token
        }
    }

    /// Removes an observer; returns whether it was there.
    func remove(_ token: Int) -> Bool {
        state.withLock { state in
            guard state.live.removeValue(forKey: token) != nil else { return false }
            if state.order.count > 2 * state.live.count + 16 {
                let live = state.live
                state.order.removeAll { live[$0] == nil }
            }
            return true
        }
    }

    /// Removes an observer without touching the graph's lock, for a stream ending on whatever
    /// thread cancels it (one inside an import's callback holds that lock: taking it again would
    /// deadlock). The next call updates `collectsChanges` (`takeStaleCollecting`).
    func removeLater(_ token: Int) {
        state.withLock { state in
            if state.live.removeValue(forKey: token) != nil { state.collectingIsStale = true }
        }
        _ = remove(token)  // compacts the order list; the token is gone already
    }

    /// Whether a `removeLater` happened since the last ask, and whether any observer is left.
    func takeStaleCollecting() -> (stale: Bool, isEmpty: Bool) {
        state.withLock { state in
            defer { state.collectingIsStale = false }
            return (state.collectingIsStale, state.live.isEmpty)
        }
    }

    func contains(_ token: Int) -> Bool { state.withLock { $0.live[token] != nil } }

    var isEmpty: Bool { state.withLock { $0.live.isEmpty } }

    /// The observers registered now, in registration order.
    var current: [(token: Int, observer: Observer)] {
        state.withLock { state in state.order.compactMap { token in state.live[token].map { (token, $0) } } }
    }
}

/// Per thread, the observer call it is inside: how many commits deep in observers changing the
/// graph it is (0 outside any), and the token of the observer being called.
final class ObserverCalls: Sendable {
    struct Call: Sendable {
        var depth: Int
        var token: Int
    }

    private let calls = Locked<[UInt: Call]>([:])

    var current: Call { calls.withLock { $0[callingThread()] } ?? Call(depth: 0, token: 0) }

    func with<T>(_ call: Call, _ body: () -> T) -> T {
        let thread = callingThread()
        let previous = calls.withLock { calls in
            defer { calls[thread] = call }
            return calls[thread]
        }
        defer { calls.withLock { $0[thread] = previous } }
        return body()
    }
}

extension MappingContext {
    /// How many commits deep observers may change the graph in turn: an observer called for a
    /// commit that observers made this many levels down may read, but a change it makes fails with
    /// `.misuse` (an observer that always changes something would otherwise never let the
    /// committing call return).
    public static let observerChangeDepth = 32

    /// Calls `observer` with the change set of every later commit on this context. Returns a token
    /// for `removeObserver`.
    @discardableResult
    public func addObserver(_ observer: @escaping @Sendable (ChangeSet) -> Void) -> Int {
        let token = observers.add(observer)
        updateCollecting()
        return token
    }

    /// Stops calling the observer `token` names; `false` if there is none (already removed). Once
    /// it returns, the observer is not called again, not even for a commit being delivered.
    @discardableResult
    public func removeObserver(_ token: Int) -> Bool {
        let found = observers.remove(token)
        updateCollecting()
        return found
    }

    /// Whether `token` names a registered observer (or watch).
    public func isObserving(_ token: Int) -> Bool { observers.contains(token) }

    /// The observer call the calling thread is in: its token and depth (see `observerChangeDepth`).
    /// Read by an observer that defers its work (the C layer's): it runs that work later inside
    /// `withObserverCall` with the same values.
    public var observerCall: (depth: Int, token: Int) {
        let call = observerCalls.current
        return (call.depth, call.token)
    }

    /// Runs `body` as the call of observer `token` at `depth` (see `observerCall`).
    public func withObserverCall<T>(depth: Int, token: Int, _ body: () -> T) -> T {
        observerCalls.with(ObserverCalls.Call(depth: depth, token: token), body)
    }

    /// Whether the calling thread holds a transaction open on this context.
    public var hasTransactionOnCallingThread: Bool { graph.isHeldByCallingThread }

    /// Rolls back the transaction the calling thread holds open, if it has one; returns whether it
    /// did. For an observer that returned with a transaction open: the rule is that it ends its
    /// own, and the caller's later calls must not silently join it.
    public func rollbackTransactionLeftOpen() -> Bool {
        guard graph.isHeldByCallingThread else { return false }
        do {
            try rollback()
            return true
        } catch {
            return false
        }
    }

    /// Change sets cost a walk over what each commit touched: collected only while someone listens.
    /// Decided under the graph's lock from the list as it is then, so concurrent adds and removes
    /// cannot leave it off while an observer is registered.
    private func updateCollecting() {
        graph.withLockIgnoringTransactions { $0.session.collectsChanges = !observers.isEmpty }
    }

    /// A change made from inside observers `observerChangeDepth` commits deep fails.
    func changeRefusal() -> MappingError? {
        let depth = observerCalls.current.depth
        guard depth >= Self.observerChangeDepth else { return nil }
        return MappingError(.misuse, "a change made by an observer \(depth) commits deep: observers changed the graph in turn "
                            + "\(Self.observerChangeDepth) times; change it from an observer only when the change set asks for it")
    }

    /// Tells each observer still registered of each change set, one level deeper than the caller.
    func notify(_ changes: [ChangeSet]) {
        let listening = observers.current
        let depth = observerCalls.current.depth + 1
        for change in changes {
            for (token, observer) in listening where observers.contains(token) {
                withObserverCall(depth: depth, token: token) { observer(change) }
            }
        }
    }
}
