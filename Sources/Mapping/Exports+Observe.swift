import CMappingHeader
import Glibc
import MappingCore
import MappingEngine
import MappingLock

/// What a `const mapping_changes *` stands for during an observer call: one change set, with the C
/// strings its accessors lend (entity names are the context's own; identities and changed-name
/// lists are made here and freed with the handle, after the call).
final class ChangesHandle: @unchecked Sendable {
    let changes: ChangeSet
    let context: ContextHandle
    let identities: [UnsafeMutablePointer<CChar>?]
    let changedNames: [UnsafeMutablePointer<CChar>?]

    init(_ changes: ChangeSet, context: ContextHandle) {
        self.changes = changes
        self.context = context
        identities = changes.deleted.map { CString.copy($0.identity.text().utf8) }
        changedNames = changes.updated.map { CString.copy(JSONValue.array($0.changed.map(JSONValue.string)).text().utf8) }
    }

    deinit {
        for pointer in identities { free(pointer) }
        for pointer in changedNames { free(pointer) }
    }

    func count(_ kind: CInt) throws(MappingError) -> Int {
        switch kind {
        case CInt(MAPPING_CHANGE_INSERTED.rawValue): changes.inserted.count
        case CInt(MAPPING_CHANGE_UPDATED.rawValue): changes.updated.count
        case CInt(MAPPING_CHANGE_DELETED.rawValue): changes.deleted.count
        default: throw MappingError(.misuse, "kind \(kind) is not a MAPPING_CHANGE_* value")
        }
    }

    /// `index` checked against the entries of `kind`.
    func position(_ kind: CInt, _ index: Int) throws(MappingError) -> Int {
        let total = try count(kind)
        let position = UInt(bitPattern: index)
        guard position < UInt(total) else {
            throw MappingError(.range, "index \(position) is out of range: the change set has \(total) of that kind")
        }
        return Int(position)
    }
}

/// A C observer and its payload, as the engine's observer closure.
private struct CObserver: @unchecked Sendable {
    let function: mapping_observer_fn
    let payload: UnsafeMutableRawPointer?

    func call(_ changes: ChangeSet, context: ContextHandle, contextPointer: OpaquePointer?) {
        let handle = ChangesHandle(changes, context: context)
        let pointer = Registry.changes.add(handle)
        function(contextPointer, pointer, payload)
        Registry.changes.remove(pointer)
    }
}

/// The C observer and watch calls one thread's call made due, run once the call has left the
/// context (`withContext`), so that they may call the context.
final class PendingChanges: @unchecked Sendable {
    struct Call {
        /// The observer's (or watch's) token: a call whose observer was removed meanwhile is
        /// skipped. Nil for a warning handler's call, which is no observer's.
        let token: Int?
        /// How many commits deep in observers the commit it reports was made (see
        /// `MappingContext.observerChangeDepth`).
        let depth: Int
        let run: (ContextHandle, OpaquePointer?) -> Void
    }

    var queue: [Call] = []
    /// Set while the queue is being delivered: calls the observers make then leave the rest to the
    /// loop already running, so observers are called in commit and registration order.
    var delivering = false
}

extension ContextHandle {
    /// Queues a C call for when the calling thread's current call leaves the context. Called from
    /// the engine's observer, so the engine's current observer call names it.
    func deliverLater(_ call: @escaping (ContextHandle, OpaquePointer?) -> Void) {
        let current = core.observerCall
        existingSlot()?.pendingChanges.queue.append(PendingChanges.Call(token: current.token, depth: current.depth, run: call))
    }

    /// Queues a C warning handler's call likewise (the engine calls the handler inside the call).
    func deliverWarningLater(_ call: @escaping (ContextHandle, OpaquePointer?) -> Void) {
        existingSlot()?.pendingChanges.queue.append(PendingChanges.Call(token: nil, depth: core.observerCall.depth, run: call))
    }

    /// Makes the C observer and watch calls the calling thread's last call made due; returns whether
    /// there were any. An observer removed before its turn is skipped; once an observer frees the
    /// context, nothing more is called; a transaction an observer opened and left open is rolled
    /// back when it returns (its changes are not kept), so that the caller's later calls do not
    /// silently join it.
    func deliverChanges(_ slot: ThreadSlot, contextPointer: OpaquePointer?) -> Bool {
        let pending = slot.pendingChanges
        guard !pending.queue.isEmpty, !pending.delivering else { return false }
        pending.delivering = true
        var next = 0
        // By index: the observers' own commits append to the queue while it is delivered.
        while next < pending.queue.count {
            let call = pending.queue[next]
            next += 1
            if let token = call.token, !core.isObserving(token) { continue }
            guard Registry.contexts.find(contextPointer) === self else { break }
            let heldBefore = core.hasTransactionOnCallingThread
            core.withObserverCall(depth: call.depth, token: call.token ?? 0) { call.run(self, contextPointer) }
            if !heldBefore { _ = core.rollbackTransactionLeftOpen() }
        }
        pending.queue.removeAll()
        pending.delivering = false
        return true
    }
}

private func changes(_ pointer: OpaquePointer?) throws(MappingError) -> ChangesHandle {
    guard let handle = Registry.changes.find(pointer) else {
        throw MappingError(.misuse, pointer == nil ? "the change set is NULL"
                           : "the change set is no longer valid (use it only during the observer call)")
    }
    return handle
}

/// Exported to C as `mapping_context_observe`.
@_cdecl("mapping_context_observe")
public func mapping_context_observe(_ context: OpaquePointer?, _ function: mapping_observer_fn?,
                                    _ payload: UnsafeMutableRawPointer?, _ out: UnsafeMutablePointer<UInt64>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let function else { throw MappingError(.misuse, "the observer function is NULL") }
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let observer = CObserver(function: function, payload: payload)
        let token = handle.core.addObserver { [weak handle] changes in
            handle?.deliverLater { context, pointer in observer.call(changes, context: context, contextPointer: pointer) }
        }
        out.pointee = UInt64(clamping: token)
    }
}

/// A C warning handler and its payload.
private struct CWarningHandler: @unchecked Sendable {
    let function: mapping_context_warning_fn
    let payload: UnsafeMutableRawPointer?
}

/// Exported to C as `mapping_context_set_warning_handler`.
@_cdecl("mapping_context_set_warning_handler")
public func mapping_context_set_warning_handler(_ context: OpaquePointer?, _ function: mapping_context_warning_fn?,
                                                _ payload: UnsafeMutableRawPointer?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        guard let function else {
            handle.core.setWarningHandler(nil)
            return
        }
        let handler = CWarningHandler(function: function, payload: payload)
        handle.core.setWarningHandler { [weak handle] message in
            handle?.deliverWarningLater { _, pointer in message.withCString { handler.function(pointer, $0, handler.payload) } }
        }
    }
}

/// Exported to C as `mapping_context_unobserve`.
@_cdecl("mapping_context_unobserve")
public func mapping_context_unobserve(_ context: OpaquePointer?, _ token: UInt64) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        guard token <= UInt64(Int.max), handle.core.removeObserver(Int(token)) else {
            throw MappingError(.notFound, "no observer \(token) on this context")
        }
    }
}

/// Exported to C as `mapping_changes_count`.
@_cdecl("mapping_changes_count")
public func mapping_changes_count(_ pointer: OpaquePointer?, _ kind: CInt, _ out: UnsafeMutablePointer<Int>?) -> CInt {
    out?.pointee = 0
    return withoutContext { () throws(MappingError) in try store(try changes(pointer).count(kind), into: out) }
}

/// Exported to C as `mapping_changes_object`.
@_cdecl("mapping_changes_object")
public func mapping_changes_object(_ pointer: OpaquePointer?, _ kind: CInt, _ index: Int,
                                   _ out: UnsafeMutablePointer<UInt64>?) -> CInt {
    out?.pointee = 0
    return withoutContext { () throws(MappingError) in
        let handle = try changes(pointer)
        let at = try handle.position(kind, index)
        switch kind {
        case CInt(MAPPING_CHANGE_INSERTED.rawValue): try store(handle.changes.inserted[at].object.raw, into: out)
        case CInt(MAPPING_CHANGE_UPDATED.rawValue): try store(handle.changes.updated[at].object.raw, into: out)
        default: throw MappingError(.stale, "a deleted object has no handle: read its entity and identity")
        }
    }
}

/// Exported to C as `mapping_changes_entity`.
@_cdecl("mapping_changes_entity")
public func mapping_changes_entity(_ pointer: OpaquePointer?, _ kind: CInt, _ index: Int,
                                   _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        let handle = try changes(pointer)
        let at = try handle.position(kind, index)
        let name = switch kind {
        case CInt(MAPPING_CHANGE_INSERTED.rawValue): handle.changes.inserted[at].entity
        case CInt(MAPPING_CHANGE_UPDATED.rawValue): handle.changes.updated[at].entity
        default: handle.changes.deleted[at].entity
        }
        try store(UnsafePointer(handle.context.entityNames[name]), into: out)
    }
}

/// Exported to C as `mapping_changes_identity`.
@_cdecl("mapping_changes_identity")
public func mapping_changes_identity(_ pointer: OpaquePointer?, _ index: Int,
                                     _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        let handle = try changes(pointer)
        let at = try handle.position(CInt(MAPPING_CHANGE_DELETED.rawValue), index)
        try store(UnsafePointer(handle.identities[at]), into: out)
    }
}

/// Exported to C as `mapping_changes_changed`.
@_cdecl("mapping_changes_changed")
public func mapping_changes_changed(_ pointer: OpaquePointer?, _ index: Int,
                                    _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        let handle = try changes(pointer)
        let at = try handle.position(CInt(MAPPING_CHANGE_UPDATED.rawValue), index)
        try store(UnsafePointer(handle.changedNames[at]), into: out)
    }
}
