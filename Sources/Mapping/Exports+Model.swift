import MappingCore
import MappingEngine

/// The entity named by a C argument, or MAPPING_ENAME.
private func entity(_ handle: ContextHandle, _ name: UnsafePointer<CChar>?) throws(MappingError) -> Entity {
    let entityName = try CString.argument(name, "entity")
    guard let entity = handle.core.model.entity(named: entityName) else {
        throw handle.core.model.unknownEntity(entityName)
    }
    return entity
}

/// The name at `index` of one of the context's interned name tables, or MAPPING_ERANGE.
private func name(in table: [UnsafeMutablePointer<CChar>]?, at index: Int, of what: String) throws(MappingError) -> UnsafePointer<CChar>? {
    let table = table ?? []
    let position = UInt(bitPattern: index)
    guard position < UInt(table.count) else {
        throw MappingError(.range, "index \(position) is out of range: the entity has \(table.count) \(what)")
    }
    return UnsafePointer(table[Int(position)])
}

/// Exported to C as `mapping_entity_attribute_count`.
@_cdecl("mapping_entity_attribute_count")
public func mapping_entity_attribute_count(_ context: OpaquePointer?, _ entityName: UnsafePointer<CChar>?,
                                           _ out: UnsafeMutablePointer<Int>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        try store(try entity(handle, entityName).attributes.count, into: out)
    }
}

/// Exported to C as `mapping_entity_attribute_name`.
@_cdecl("mapping_entity_attribute_name")
public func mapping_entity_attribute_name(_ context: OpaquePointer?, _ entityName: UnsafePointer<CChar>?,
                                          _ index: Int, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        let declared = try entity(handle, entityName)
        try store(try name(in: handle.attributeNames[declared.name], at: index, of: "attributes"), into: out)
    }
}

/// Exported to C as `mapping_entity_identification_count`.
@_cdecl("mapping_entity_identification_count")
public func mapping_entity_identification_count(_ context: OpaquePointer?, _ entityName: UnsafePointer<CChar>?,
                                                _ out: UnsafeMutablePointer<Int>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        let declared = try entity(handle, entityName)
        try store(declared.identityMap == nil ? 0 : declared.identification.count, into: out)
    }
}

/// Exported to C as `mapping_entity_identification_name`.
@_cdecl("mapping_entity_identification_name")
public func mapping_entity_identification_name(_ context: OpaquePointer?, _ entityName: UnsafePointer<CChar>?,
                                               _ index: Int, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        let declared = try entity(handle, entityName)
        let identification = declared.identityMap == nil ? [] : declared.identification
        let position = UInt(bitPattern: index)
        guard position < UInt(identification.count) else {
            throw MappingError(.range, "index \(position) is out of range: \(declared.name) is identified by \(identification.count) attribute(s)")
        }
        try store(try name(in: handle.attributeNames[declared.name], at: identification[Int(position)], of: "attributes"), into: out)
    }
}

/// Exported to C as `mapping_entity_relationship_count`.
@_cdecl("mapping_entity_relationship_count")
public func mapping_entity_relationship_count(_ context: OpaquePointer?, _ entityName: UnsafePointer<CChar>?,
                                              _ out: UnsafeMutablePointer<Int>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        try store(try entity(handle, entityName).relationships.count, into: out)
    }
}

/// Exported to C as `mapping_entity_relationship_name`.
@_cdecl("mapping_entity_relationship_name")
public func mapping_entity_relationship_name(_ context: OpaquePointer?, _ entityName: UnsafePointer<CChar>?,
                                             _ index: Int,
                                             _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        let declared = try entity(handle, entityName)
        try store(try name(in: handle.relationshipNames[declared.name], at: index, of: "relationships"), into: out)
    }
}

/// Exported to C as `mapping_entity_relationship_is_to_many`.
@_cdecl("mapping_entity_relationship_is_to_many")
public func mapping_entity_relationship_is_to_many(_ context: OpaquePointer?, _ entityName: UnsafePointer<CChar>?,
                                            _ relationship: UnsafePointer<CChar>?,
                                            _ out: UnsafeMutablePointer<Bool>?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        let declared = try entity(handle, entityName)
        let relationshipName = try CString.argument(relationship, "relationship")
        guard let index = declared.relationshipIndex(named: relationshipName) else {
            throw declared.unknownRelationship(relationshipName)
        }
        try store(declared.relationships[index].toMany, into: out)
    }
}
