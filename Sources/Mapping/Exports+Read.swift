import CMappingHeader
import MappingArena
import MappingCore
import MappingEngine

/// Runs `body` with an attribute's value and declaration; the shared frame of every getter.
private func withAttribute(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                           _ body: (AttributeValue?, Attribute, ThreadSlot) throws(MappingError) -> Void) -> CInt {
    withContext(context) { (handle, slot) throws(MappingError) in
        let name = try CString.argument(attribute, "attribute")
        let (value, declared) = try handle.core.value(of: ObjectID(raw: object), attribute: name)
        try body(value, declared, slot)
    }
}

/// The value, or MAPPING_ENULL when there is none.
private func present(_ value: AttributeValue?, _ declared: Attribute) throws(MappingError) -> AttributeValue {
    guard let value else { throw MappingError(.null, "attribute \"\(declared.name)\" is null") }
    return value
}

private func wrongType(_ declared: Attribute, _ getter: String) -> MappingError {
    let reader = switch declared.type {
    case .string: "mapping_object_get_string"
    case .integer: "mapping_object_get_int64"
    case .double: "mapping_object_get_double"
    case .decimal: "mapping_object_get_decimal"
    case .boolean: "mapping_object_get_bool"
    case .date: "mapping_object_get_date"
    case .json: "mapping_object_get_json"
    }
    return MappingError(.type, "attribute \"\(declared.name)\" is a \(declared.type.rawValue), not readable with \(getter); use \(reader)")
}

/// Exported to C as `mapping_object_check`.
@_cdecl("mapping_object_check")
public func mapping_object_check(_ context: OpaquePointer?, _ object: UInt64) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        guard try handle.core.isLive(ObjectID(raw: object)) else {
            throw MappingError(.stale, "object \(ObjectID(raw: object)) was deleted or belongs to another context")
        }
    }
}

/// Exported to C as `mapping_object_entity`.
@_cdecl("mapping_object_entity")
public func mapping_object_entity(_ context: OpaquePointer?, _ object: UInt64,
                                _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        let name = try handle.core.entityName(of: ObjectID(raw: object))
        try store(handle.entityNames[name].map { UnsafePointer($0) }, into: out)
    }
}

/// Exported to C as `mapping_entity_attribute_type`.
@_cdecl("mapping_entity_attribute_type")
public func mapping_entity_attribute_type(_ context: OpaquePointer?, _ entity: UnsafePointer<CChar>?,
                                   _ attribute: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<CInt>?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        let entityName = try CString.argument(entity, "entity")
        let attributeName = try CString.argument(attribute, "attribute")
        guard let declared = handle.core.model.entity(named: entityName) else {
            throw handle.core.model.unknownEntity(entityName)
        }
        guard let index = declared.attributeIndex(named: attributeName) else {
            throw declared.unknownAttribute(attributeName)
        }
        let code: mapping_type = switch declared.attributes[index].type {
        case .string: MAPPING_TYPE_STRING
        case .integer: MAPPING_TYPE_INTEGER
        case .double: MAPPING_TYPE_DOUBLE
        case .decimal: MAPPING_TYPE_DECIMAL
        case .boolean: MAPPING_TYPE_BOOLEAN
        case .date: MAPPING_TYPE_DATE
        case .json: MAPPING_TYPE_JSON
        }
        try store(CInt(code.rawValue), into: out)
    }
}

/// Exported to C as `mapping_object_is_null`.
@_cdecl("mapping_object_is_null")
public func mapping_object_is_null(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                            _ out: UnsafeMutablePointer<Bool>?) -> CInt {
    withAttribute(context, object, attribute) { (value, _, _) throws(MappingError) in
        try store(value == nil, into: out)
    }
}

/// Exported to C as `mapping_object_get_string`.
@_cdecl("mapping_object_get_string")
public func mapping_object_get_string(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                               _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                               _ outLength: UnsafeMutablePointer<Int>?) -> CInt {
    out?.pointee = nil
    outLength?.pointee = 0
    return withContext(context) { (handle, slot) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let name = try CString.argument(attribute, "attribute")
        // The graph's own bytes, found under the lock: they never move, so they stay valid while the
        // value is unchanged.
        let (bytes, count, declared) = try handle.core.withStoredString(of: ObjectID(raw: object), attribute: name) {
            (ref, declared, arena) in (ref.map { arena.cString($0) }, Int(ref?.count ?? 0), declared)
        }
        guard declared.type == .string else { throw wrongType(declared, "mapping_object_get_string") }
        if let bytes {
            out.pointee = bytes
            outLength?.pointee = count
            return
        }
        let (value, _) = try handle.core.value(of: ObjectID(raw: object), attribute: name)
        guard case .string(let text) = try present(value, declared) else {
            throw wrongType(declared, "mapping_object_get_string")
        }
        out.pointee = slot.borrow(text.utf8)
        outLength?.pointee = text.utf8.count
    }
}

/// The frame of the getters that copy a value out: `extract` picks the value from the types it
/// accepts, and any other type is MAPPING_ETYPE naming the right getter.
private func getValue<T>(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                         _ out: UnsafeMutablePointer<T>?, zero: T, getter: String,
                         _ extract: (AttributeValue) -> T?) -> CInt {
    out?.pointee = zero
    return withAttribute(context, object, attribute) { (value, declared, _) throws(MappingError) in
        guard let extracted = extract(try present(value, declared)) else { throw wrongType(declared, getter) }
        try store(extracted, into: out)
    }
}

/// Exported to C as `mapping_object_get_int64`.
@_cdecl("mapping_object_get_int64")
public func mapping_object_get_int64(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                              _ out: UnsafeMutablePointer<Int64>?) -> CInt {
    getValue(context, object, attribute, out, zero: 0, getter: "mapping_object_get_int64") { value in
        if case .integer(let number) = value { number } else { nil }
    }
}

/// Exported to C as `mapping_object_get_double`.
@_cdecl("mapping_object_get_double")
public func mapping_object_get_double(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                               _ out: UnsafeMutablePointer<Double>?) -> CInt {
    getValue(context, object, attribute, out, zero: 0, getter: "mapping_object_get_double") { value in
        switch value {
        case .double(let number): number
        case .integer(let number): Double(number)
        case .decimal(let number): number.doubleValue
        default: nil
        }
    }
}

/// Exported to C as `mapping_object_get_bool`.
@_cdecl("mapping_object_get_bool")
public func mapping_object_get_bool(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                             _ out: UnsafeMutablePointer<Bool>?) -> CInt {
    getValue(context, object, attribute, out, zero: false, getter: "mapping_object_get_bool") { value in
        if case .boolean(let flag) = value { flag } else { nil }
    }
}

/// Exported to C as `mapping_object_get_date`.
@_cdecl("mapping_object_get_date")
public func mapping_object_get_date(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                             _ out: UnsafeMutablePointer<Double>?) -> CInt {
    getValue(context, object, attribute, out, zero: 0, getter: "mapping_object_get_date") { value in
        if case .date(let instant) = value { instant.secondsSince1970 } else { nil }
    }
}

/// Exported to C as `mapping_object_get_date_us`.
@_cdecl("mapping_object_get_date_us")
public func mapping_object_get_date_us(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                                       _ out: UnsafeMutablePointer<Int64>?) -> CInt {
    getValue(context, object, attribute, out, zero: 0, getter: "mapping_object_get_date_us") { value in
        if case .date(let instant) = value { instant.microseconds } else { nil }
    }
}

/// Exported to C as `mapping_object_get_decimal`.
@_cdecl("mapping_object_get_decimal")
public func mapping_object_get_decimal(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                                _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withAttribute(context, object, attribute) { (value, declared, slot) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        guard case .decimal(let number) = try present(value, declared) else {
            throw wrongType(declared, "mapping_object_get_decimal")
        }
        out.pointee = slot.borrow(number.description.utf8)
    }
}

/// Exported to C as `mapping_object_get_json`.
@_cdecl("mapping_object_get_json")
public func mapping_object_get_json(_ context: OpaquePointer?, _ object: UInt64, _ attribute: UnsafePointer<CChar>?,
                             _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withAttribute(context, object, attribute) { (value, _, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }  // before allocating
        out.pointee = CString.copy((value?.jsonText ?? "null").utf8)
    }
}

/// Exported to C as `mapping_object_related`.
@_cdecl("mapping_object_related")
public func mapping_object_related(_ context: OpaquePointer?, _ object: UInt64, _ relationship: UnsafePointer<CChar>?,
                                _ out: UnsafeMutablePointer<UInt64>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        let name = try CString.argument(relationship, "relationship")
        let target = try handle.core.relatedObject(of: ObjectID(raw: object), relationship: name)
        try store(target?.raw ?? 0, into: out)
    }
}

/// Exported to C as `mapping_object_related_list`.
@_cdecl("mapping_object_related_list")
public func mapping_object_related_list(_ context: OpaquePointer?, _ object: UInt64,
                                     _ relationship: UnsafePointer<CChar>?,
                                     _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let name = try CString.argument(relationship, "relationship")
        let targets = try handle.core.relatedObjects(of: ObjectID(raw: object), relationship: name)
        out.pointee = Registry.lists.add(ListHandle(targets))
    }
}

/// Exported to C as `mapping_list_values`.
@_cdecl("mapping_list_values")
public func mapping_list_values(_ context: OpaquePointer?, _ objects: OpaquePointer?, _ attribute: UnsafePointer<CChar>?,
                               _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let list = try Registry.list(objects)
        // Dates as seconds since 1970 in exact decimal text: every microsecond, unlike ISO text (ms)
        // or a double (about 15 digits).
        out.pointee = CString.copy(try handle.core.valuesText(of: list.objects, attribute: try CString.argument(attribute, "attribute")))
    }
}
