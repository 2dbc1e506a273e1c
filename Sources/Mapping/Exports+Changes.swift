import MappingCore
import MappingEngine
import MappingJSON

/// Exported to C as `mapping_context_begin`.
@_cdecl("mapping_context_begin")
public func mapping_context_begin(_ context: OpaquePointer?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in try handle.core.begin() }
}

/// Exported to C as `mapping_context_commit`.
@_cdecl("mapping_context_commit")
public func mapping_context_commit(_ context: OpaquePointer?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in try handle.core.commit() }
}

/// Exported to C as `mapping_context_rollback`.
@_cdecl("mapping_context_rollback")
public func mapping_context_rollback(_ context: OpaquePointer?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in try handle.core.rollback() }
}


/// Exported to C as `mapping_object_create`.
@_cdecl("mapping_object_create")
public func mapping_object_create(_ context: OpaquePointer?, _ entity: UnsafePointer<CChar>?, _ values: UnsafePointer<CChar>?,
                           _ out: UnsafeMutablePointer<UInt64>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        var members: [JSONMember] = []
        if values != nil {
            guard case .object(let given) = try JSONArgument.parse(values, "values") else {
                throw MappingError(.misuse, "values must be a JSON object of attribute values")
            }
            members = given
        }
        out.pointee = try handle.core.create(try CString.argument(entity, "entity"), values: members).raw
    }
}

/// Exported to C as `mapping_object_set`.
@_cdecl("mapping_object_set")
public func mapping_object_set(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                        _ value: UnsafePointer<CChar>?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        try handle.core.set(ObjectID(raw: object), attribute: try CString.argument(attribute, "attribute"),
                            to: try JSONArgument.parse(value, "value"))
    }
}

/// Exported to C as `mapping_object_set_related`.
@_cdecl("mapping_object_set_related")
public func mapping_object_set_related(_ context: OpaquePointer?, _ object: UInt64, _ relationship: UnsafePointer<CChar>?,
                                _ target: UInt64) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        try handle.core.setRelated(ObjectID(raw: object), relationship: try CString.argument(relationship, "relationship"),
                                   to: target == 0 ? [] : [ObjectID(raw: target)])
    }
}

/// Exported to C as `mapping_object_set_related_list`.
@_cdecl("mapping_object_set_related_list")
public func mapping_object_set_related_list(_ context: OpaquePointer?, _ object: UInt64, _ relationship: UnsafePointer<CChar>?,
                                     _ targets: OpaquePointer?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        let list = try Registry.list(targets)
        try handle.core.setRelated(ObjectID(raw: object), relationship: try CString.argument(relationship, "relationship"),
                                   to: list.objects)
    }
}

/// Exported to C as `mapping_object_add_related`.
@_cdecl("mapping_object_add_related")
public func mapping_object_add_related(_ context: OpaquePointer?, _ object: UInt64, _ relationship: UnsafePointer<CChar>?,
                                _ target: UInt64, _ index: Int) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        let position = UInt(bitPattern: index)
        try handle.core.addRelated(ObjectID(raw: object), relationship: try CString.argument(relationship, "relationship"),
                                   ObjectID(raw: target), at: position == UInt.max ? nil : Int(clamping: position))
    }
}

/// Exported to C as `mapping_object_remove_related`.
@_cdecl("mapping_object_remove_related")
public func mapping_object_remove_related(_ context: OpaquePointer?, _ object: UInt64, _ relationship: UnsafePointer<CChar>?,
                                   _ target: UInt64) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        try handle.core.removeRelated(ObjectID(raw: object), relationship: try CString.argument(relationship, "relationship"),
                                      ObjectID(raw: target))
    }
}

/// Exported to C as `mapping_object_move_related`.
@_cdecl("mapping_object_move_related")
public func mapping_object_move_related(_ context: OpaquePointer?, _ object: UInt64, _ relationship: UnsafePointer<CChar>?,
                                 _ from: Int, _ to: Int) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        try handle.core.moveRelated(ObjectID(raw: object), relationship: try CString.argument(relationship, "relationship"),
                                    from: Int(clamping: UInt(bitPattern: from)), to: Int(clamping: UInt(bitPattern: to)))
    }
}

/// Exported to C as `mapping_object_delete`.
@_cdecl("mapping_object_delete")
public func mapping_object_delete(_ context: OpaquePointer?, _ object: UInt64) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in try handle.core.delete(ObjectID(raw: object)) }
}
