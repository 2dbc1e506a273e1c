import CMappingHeader
import MappingCore
import MappingJSON
import MappingSQL
import MappingSQLite
#if MAPPING_POSTGRES
import MappingPostgres
#endif

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
        let context = try MappingContext(spec: try CompiledSpec.load(json: bytes))
        let specText = String(decoding: bytes, as: UTF8.self)
        let create = flags & CUnsignedInt(MAPPING_OPEN_CREATE.rawValue) != 0
        let readOnly = flags & CUnsignedInt(MAPPING_OPEN_READONLY.rawValue) != 0
        let rebuild = flags & CUnsignedInt(MAPPING_OPEN_REBUILD.rawValue) != 0
        let location = try CString.argument(path, "path")
        if StoreLocation.isPostgreSQL(location) {
            #if MAPPING_POSTGRES
            try PostgresStore.open(location, for: context, specText: specText,
                                   options: PostgresStore.Options(create: create, readOnly: readOnly, rebuild: rebuild,
                                                                  follow: flags & CUnsignedInt(MAPPING_OPEN_NO_FOLLOW.rawValue) == 0))
            #else
            throw MappingError(.unavailable, "this build of libmapping has no PostgreSQL store (it was built without libpq)")
            #endif
        } else {
            let options = SQLiteStore.Options(create: create, readOnly: readOnly,
                                              durable: flags & CUnsignedInt(MAPPING_OPEN_DURABLE.rawValue) != 0, rebuild: rebuild)
            try SQLiteStore.open(location, for: context, specText: specText, options: options)
        }
        out.pointee = Registry.contexts.add(ContextHandle(core: context))
    }
}

/// Exported to C as `mapping_context_refresh`.
@_cdecl("mapping_context_refresh")
public func mapping_context_refresh(_ context: OpaquePointer?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in try handle.core.refresh() }
}
