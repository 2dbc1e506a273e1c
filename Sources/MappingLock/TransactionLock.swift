import Glibc

/// The lock of a context's graph, with transactions owned by the thread that opened them.
///
/// Every call takes the mutex for its own duration, as `Locked` does. Besides, the value can be
/// *held across calls* (an open transaction, as `heldAcrossCalls` tells after each call): the thread
/// whose call left it held becomes its owner, and until a call of the owner leaves it released, other
/// threads wait on a condition variable — at most the busy timeout, after which they are refused
/// with nothing run. So another thread never joins, sees or ends a transaction halfway, which is how
/// a SQLite write transaction or GRDB's serialized database behaves.
public final class TransactionLock<Value>: @unchecked Sendable {
    /// Why a call did not get the lock.
    public enum Refusal: Sendable {
        /// Another thread's transaction stayed open past the busy timeout (milliseconds waited).
        case busy(milliseconds: Int)
        /// `close()` was called: the owner of the lock is gone.
        case closed
    }

    /// A busy timeout that waits as long as the transaction stays open.
    public static var waitForever: Int { -1 }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let released: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value
    private let heldAcrossCalls: (borrowing Value) -> Bool
    private var owner: pthread_t?
    private var closed = false
    private var busyTimeout: Int

    public init(_ value: Value, busyTimeout milliseconds: Int, heldAcrossCalls: @escaping (borrowing Value) -> Bool) {
        self.value = value
        self.heldAcrossCalls = heldAcrossCalls
        busyTimeout = milliseconds
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        // Deadlines are measured on the monotonic clock, so a change of the wall clock neither
        // cuts a wait short nor stretches it.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        released = .allocate(capacity: 1)
        released.initialize(to: pthread_cond_t())
        pthread_cond_init(released, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(released)
        released.deinitialize(count: 1)
        released.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value, first waiting (up to the busy timeout) while
    /// another thread holds it across calls. A refused call runs nothing and throws `refused(why)`.
    /// Not re-entrant, like `Locked.withLock`.
    public func withLock<Result, Failure: Error>(
        refused: (Refusal) -> Failure,
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let refusal = waitForOwnerLocked() { throw refused(refusal) }
        defer { updateOwnerLocked() }
        return try body(&value)
    }

    /// Runs `body` on the value whatever state the lock is in (closed, or held by a transaction): for
    /// the owner's `deinit` only, when no other thread can hold a reference.
    public func withLockIgnoringTransactions<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }

    /// Sets how long a call waits for another thread's transaction: 0 not at all, `waitForever`
    /// (any negative number) without limit. Takes effect for calls that start waiting afterwards.
    public func setBusyTimeout(milliseconds: Int) {
        pthread_mutex_lock(mutex)
        busyTimeout = milliseconds
        pthread_mutex_unlock(mutex)
    }

    /// Whether the calling thread holds the value across calls (it opened a transaction).
    public var isHeldByCallingThread: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard let current = owner else { return false }
        return pthread_equal(current, pthread_self()) != 0
    }

    /// Refuses every later call, and wakes the ones waiting so that they fail at once instead of
    /// waiting out their timeout (the context is being freed).
    public func close() {
        pthread_mutex_lock(mutex)
        closed = true
        pthread_cond_broadcast(released)
        pthread_mutex_unlock(mutex)
    }

    /// With the mutex held: waits until no other thread owns the value; `nil` once it may proceed.
    private func waitForOwnerLocked() -> Refusal? {
        let me = pthread_self()
        let deadline = busyTimeout >= 0 ? Self.deadline(afterMilliseconds: busyTimeout) : nil
        while !closed, let current = owner, pthread_equal(current, me) == 0 {
            if var deadline {
                let status = pthread_cond_timedwait(released, mutex, &deadline)
                if status == ETIMEDOUT, !closed, let current = owner, pthread_equal(current, me) == 0 {
                    return .busy(milliseconds: busyTimeout)
                }
            } else {
                pthread_cond_wait(released, mutex)
            }
        }
        return closed ? .closed : nil
    }

    /// With the mutex held, after a call: the calling thread owns the value if the call left it held
    /// across calls; otherwise nobody does, and the threads waiting for it are woken.
    private func updateOwnerLocked() {
        if heldAcrossCalls(value) {
            owner = pthread_self()
        } else if owner != nil {
            owner = nil
            pthread_cond_broadcast(released)
        }
    }

    /// `milliseconds` from now on the monotonic clock. Timeouts are clamped to a day so that the
    /// arithmetic cannot overflow whatever the caller passed.
    private static func deadline(afterMilliseconds milliseconds: Int) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let clamped = min(max(milliseconds, 0), 86_400_000)
        var seconds = Int(now.tv_sec) + clamped / 1000
        var nanoseconds = Int(now.tv_nsec) + (clamped % 1000) * 1_000_000
        if nanoseconds >= 1_000_000_000 {
            seconds += 1
            nanoseconds -= 1_000_000_000
        }
        return timespec(tv_sec: seconds, tv_nsec: nanoseconds)
    }
}
