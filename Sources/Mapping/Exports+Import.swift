import MappingCore
import MappingEngine
import MappingJSON

/// Exported to C as `mapping_context_import`.
@_cdecl("mapping_context_import")
public func mapping_context_import(_ context: OpaquePointer?, _ mapping: UnsafePointer<CChar>?,
                           _ json: UnsafePointer<CChar>?, _ length: Int,
                           _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        let name = try CString.argument(mapping, "mapping")
        let bytes = try CString.buffer(json, length: UInt(bitPattern: length), "json")
        let objects = try handle.core.importJSON(mapping: name, bytes)
        if let out { out.pointee = Registry.lists.add(ListHandle(objects)) }
    }
}
