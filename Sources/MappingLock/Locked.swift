import Glibc

/// A value guarded by a pthread mutex.
///
/// The standard library's `Synchronization.Mutex` would do, but on Linux it locks with raw futex
/// system calls that ThreadSanitizer cannot see, so every access it guards is reported as a race.
/// A pthread mutex is understood by ThreadSanitizer and costs the same when uncontended. This is
/// the package's only lock; it lives in its own target to keep the unsafe pointer out of the core.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Not re-entrant: calling `withLock` on the
    /// same instance from inside `body` deadlocks, which the C layer prevents by refusing
    /// re-entrant calls before they get here.
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
