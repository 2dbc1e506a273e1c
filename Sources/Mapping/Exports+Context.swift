import CMappingHeader
import Glibc
import MappingCore
import MappingEngine
import MappingJSON

/// Exported to C as `mapping_context_new`.
@_cdecl("mapping_context_new")
public func mapping_context_new(_ spec: UnsafePointer<CChar>?, _ length: Int,
                                _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let bytes = try CString.buffer(spec, length: UInt(bitPattern: length), "spec")
        let context = try MappingContext(spec: try CompiledSpec.load(json: bytes))
        out.pointee = Registry.contexts.add(ContextHandle(core: context))
    }
}

/// Exported to C as `mapping_context_free`.
@_cdecl("mapping_context_free")
public func mapping_context_free(_ context: OpaquePointer?) {
    // Calls already under way keep the context alive until they return; closing it makes the ones
    // waiting for a transaction fail now rather than at their busy timeout.
    Registry.contexts.remove(context)?.core.close()
}

/// Exported to C as `mapping_context_set_busy_timeout`.
@_cdecl("mapping_context_set_busy_timeout")
public func mapping_context_set_busy_timeout(_ context: OpaquePointer?, _ milliseconds: CInt) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        handle.core.setBusyTimeout(milliseconds: Int(milliseconds))
    }
}

/// Exported to C as `mapping_error_message`.
@_cdecl("mapping_error_message")
public func mapping_error_message(_ context: OpaquePointer?) -> UnsafePointer<CChar>? {
    errorRecord(context).pointee.message
}

/// Exported to C as `mapping_error_last`.
@_cdecl("mapping_error_last")
public func mapping_error_last(_ context: OpaquePointer?) -> UnsafePointer<mapping_error>? {
    UnsafePointer(errorRecord(context))
}

/// The calling thread's error record for `context`, or its context-less one.
private func errorRecord(_ context: OpaquePointer?) -> UnsafeMutablePointer<mapping_error> {
    if context != nil, let handle = Registry.contexts.find(context) {
        return (handle.existingSlot() ?? NoErrorSlot.shared).error
    }
    return ContextlessErrors.slot.error
}

/// Answers for a thread that has made no call on a context yet: no error.
private enum NoErrorSlot {
    static let shared = ThreadSlot()
}

/// Exported to C as `mapping_free`.
@_cdecl("mapping_free")
public func mapping_free(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}
