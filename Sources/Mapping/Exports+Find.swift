import MappingCore
import MappingEngine
import MappingJSON

/// Exported to C as `mapping_entity_find`.
@_cdecl("mapping_entity_find")
public func mapping_entity_find(_ context: OpaquePointer?, _ entity: UnsafePointer<CChar>?, _ identity: UnsafePointer<CChar>?,
                        _ out: UnsafeMutablePointer<UInt64>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let entityName = try CString.argument(entity, "entity")
        let identityText = try CString.argument(identity, "identity")
        let value = try JSONArgument.parse(identityText)
        guard let found = try handle.core.object(of: entityName, identity: value) else {
            throw MappingError(.notFound, "no \(entityName) with identity \(identityText)")
        }
        out.pointee = found.raw
    }
}

/// Exported to C as `mapping_entity_all`.
@_cdecl("mapping_entity_all")
public func mapping_entity_all(_ context: OpaquePointer?, _ entity: UnsafePointer<CChar>?,
                        _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let objects = try handle.core.objects(of: try CString.argument(entity, "entity"))
        out.pointee = Registry.lists.add(ListHandle(objects))
    }
}

/// Exported to C as `mapping_entity_count`.
@_cdecl("mapping_entity_count")
public func mapping_entity_count(_ context: OpaquePointer?, _ entity: UnsafePointer<CChar>?,
                          _ out: UnsafeMutablePointer<Int>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        try store(try handle.core.count(of: try CString.argument(entity, "entity")), into: out)
    }
}
