import CMappingHeader
import MappingCore
import MappingEngine

/// Exported to C as `mapping_context_open`.
@_cdecl("mapping_context_open")
public func mapping_context_open(_ spec: UnsafePointer<CChar>?, _ length: Int, _ path: UnsafePointer<CChar>?,
                                 _ flags: CUnsignedInt, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let known = CUnsignedInt(MAPPING_OPEN_CREATE.rawValue | MAPPING_OPEN_READONLY.rawValue | MAPPING_OPEN_DURABLE.rawValue
            | MAPPING_OPEN_REBUILD.rawValue | MAPPING_OPEN_NO_FOLLOW.rawValue)
        guard flags & ~known == 0 else { throw MappingError(.misuse, "unknown flags \(flags & ~known)") }
        let bytes = try CString.buffer(spec, length: UInt(bitPattern: length), "spec")
        let options = StoreOptions(create: isSet(MAPPING_OPEN_CREATE, in: flags), readOnly: isSet(MAPPING_OPEN_READONLY, in: flags),
                                   durable: isSet(MAPPING_OPEN_DURABLE, in: flags), rebuild: isSet(MAPPING_OPEN_REBUILD, in: flags),
                                   follow: !isSet(MAPPING_OPEN_NO_FOLLOW, in: flags))
        let context = try MappingContext.open(specJSON: bytes, at: try CString.argument(path, "path"), options: options)
        out.pointee = Registry.contexts.add(ContextHandle(core: context))
    }
}

/// Exported to C as `mapping_context_refresh`.
@_cdecl("mapping_context_refresh")
public func mapping_context_refresh(_ context: OpaquePointer?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in try handle.core.refresh() }
}

/// Exported to C as `mapping_context_set_cache_limit`.
@_cdecl("mapping_context_set_cache_limit")
public func mapping_context_set_cache_limit(_ context: OpaquePointer?, _ objects: Int) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        handle.core.cacheLimit = Int(clamping: UInt(bitPattern: objects))
    }
}

/// Exported to C as `mapping_context_cache_info`.
@_cdecl("mapping_context_cache_info")
public func mapping_context_cache_info(_ context: OpaquePointer?, _ held: UnsafeMutablePointer<Int>?,
                                       _ limit: UnsafeMutablePointer<Int>?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        held?.pointee = handle.core.cachedObjectCount
        limit?.pointee = handle.core.cacheLimit
    }
}
