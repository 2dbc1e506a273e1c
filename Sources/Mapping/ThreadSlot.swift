import CMappingHeader
import Glibc
import MappingCore
import MappingEngine

/// What one thread keeps per context (and once more for calls without a context): the detail of its
/// last failure, as the `mapping_error` record C reads, and the borrowed string of its last getter.
/// Only the owning thread touches a slot after it is created.
final class ThreadSlot: @unchecked Sendable {
    let error: UnsafeMutablePointer<mapping_error>
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var borrowed: UnsafeMutablePointer<CChar>?
    /// True while this thread is inside a call on the context: a second call is re-entrant.
    var inside = false
    /// Change sets this thread's call committed, for the C observers once the call has left.
    let pendingChanges = PendingChanges()

    init() {
        error = .allocate(capacity: 1)
        error.initialize(to: mapping_error())
        record(nil)
    }

    deinit {
        releaseStrings()
        error.deallocate()
        free(borrowed)
    }

    /// Stores `failure` as the thread's last error, or "no error" (code 0, empty strings) for nil.
    func record(_ failure: MappingError?) {
        releaseStrings()
        error.pointee = mapping_error(
            code: failure?.code.status ?? 0, message: keep(failure?.message ?? ""), path: keep(failure?.path ?? ""),
            attribute: keep(failure?.attribute ?? ""), line: CInt(clamping: failure?.line ?? 0),
            column: CInt(clamping: failure?.column ?? 0), position: CLongLong(clamping: failure?.position ?? 0))
    }

    var message: UnsafePointer<CChar>? { error.pointee.message }

    /// A NUL-terminated copy of `bytes`, valid until the next `borrow` or `releaseBorrowed`.
    func borrow(_ bytes: some Collection<UInt8>) -> UnsafePointer<CChar>? {
        releaseBorrowed()
        borrowed = CString.copy(bytes)
        return UnsafePointer(borrowed)
    }

    func releaseBorrowed() {
        free(borrowed)
        borrowed = nil
    }

    /// Empty fields (every field of a success, recorded on every call) share one static empty
    /// string: a success allocates nothing.
    private func keep(_ text: String) -> UnsafePointer<CChar>? {
        if text.isEmpty { return ThreadSlot.empty }
        guard let copy = CString.copy(text.utf8) else { return nil }
        strings.append(copy)
        return UnsafePointer(copy)
    }

    /// A literal's bytes are static and NUL-terminated.
    private static var empty: UnsafePointer<CChar> {
        UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
    }

    private func releaseStrings() {
        for string in strings { free(string) }
        strings.removeAll(keepingCapacity: true)
    }
}


/// Slots for calls that have no valid context, one per thread, released when the thread exits.
enum ContextlessErrors {
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { raw in
            if let raw { Unmanaged<ThreadSlot>.fromOpaque(raw).release() }
        }
        return status == 0 ? key : nil
    }()

    /// A slot that outlives the thread's keyed one if keys are unavailable (never expected on Linux).
    private static let fallback = ThreadSlot()

    static var slot: ThreadSlot {
        guard let key else { return fallback }
        if let raw = pthread_getspecific(key) {
            return Unmanaged<ThreadSlot>.fromOpaque(raw).takeUnretainedValue()
        }
        let slot = ThreadSlot()
        guard pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque()) == 0 else {
            Unmanaged.passUnretained(slot).release()
            return fallback
        }
        return slot
    }

    /// Records `failure` for the calling thread and returns its status code.
    static func fail(_ failure: MappingError) -> CInt {
        slot.record(failure)
        return failure.code.status
    }
}
