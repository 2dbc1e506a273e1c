import MappingCore
import MappingEngine

/// Exported to C as `mapping_object_serialize`.
@_cdecl("mapping_object_serialize")
public func mapping_object_serialize(_ context: OpaquePointer?, _ mapping: UnsafePointer<CChar>?, _ object: UInt64,
                              _ flags: CUnsignedInt,
                              _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let text = try handle.core.serialize(mapping: try CString.argument(mapping, "mapping"),
                                             objects: [ObjectID(raw: object)], asList: false,
                                             options: SerializeOptions(rawValue: UInt32(flags)))
        out.pointee = CString.copy(text.utf8)
    }
}

/// Exported to C as `mapping_list_serialize`.
@_cdecl("mapping_list_serialize")
public func mapping_list_serialize(_ context: OpaquePointer?, _ mapping: UnsafePointer<CChar>?,
                                   _ list: OpaquePointer?, _ flags: CUnsignedInt,
                                   _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let objects = try Registry.list(list).objects
        let text = try handle.core.serialize(mapping: try CString.argument(mapping, "mapping"), objects: objects,
                                             asList: true, options: SerializeOptions(rawValue: UInt32(flags)))
        out.pointee = CString.copy(text.utf8)
    }
}
