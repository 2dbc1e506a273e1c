import MappingCore
import MappingEngine

/// The one way an exported function runs: find the context, refuse re-entrant calls, run the body,
/// and turn a thrown `MappingError` into a status code with the detail recorded for the calling
/// thread. Nothing thrown escapes to C, and nothing in the body may trap.
func withContext(_ pointer: OpaquePointer?,
                 _ body: (ContextHandle, ThreadSlot) throws(MappingError) -> Void) -> CInt {
    guard let handle = Registry.contexts.find(pointer) else {
        return ContextlessErrors.fail(MappingError(.misuse, pointer == nil ? "the context is NULL"
                                                   : "the context was freed or is not a mapping_context"))
    }
    let (slot, reentrant) = handle.enter()
    guard !reentrant else {
        slot.record(MappingError(.misuse, "a call on a context from inside a callback on the same context"))
        return MappingError.Code.misuse.status
    }
    slot.releaseBorrowed()
    var failure: MappingError?
    do {
        try body(handle, slot)
    } catch {
        failure = error
    }
    slot.record(failure)
    handle.leave(slot)
    // Observers run after the call has left the context, so they may call it (a failed call
    // committed nothing and has nothing to deliver). Their calls record errors of their own: the
    // call's outcome is recorded again after them, so mapping_error_last still describes it.
    if handle.deliverChanges(slot, contextPointer: pointer) { slot.record(failure) }
    return failure?.code.status ?? 0
}

/// The same for calls that have no context.
func withoutContext(_ body: () throws(MappingError) -> Void) -> CInt {
    do {
        try body()
        ContextlessErrors.slot.record(nil)
        return 0
    } catch {
        return ContextlessErrors.fail(error)
    }
}
