import CMappingHeader
import MappingCore
import MappingEngine
import MappingJSON

/// The `arguments` of a fetch: a JSON array, or none.
func fetchArguments(_ text: UnsafePointer<CChar>?) throws(MappingError) -> [JSONValue] {
    guard let text else { return [] }
    guard case .array(let values) = try JSONArgument.parse(text, "arguments") else {
        throw MappingError(.misuse, "the arguments must be a JSON array, one value per %@")
    }
    return values
}

/// Exported to C as `mapping_entity_fetch`.
@_cdecl("mapping_entity_fetch")
public func mapping_entity_fetch(_ context: OpaquePointer?, _ entity: UnsafePointer<CChar>?, _ predicate: UnsafePointer<CChar>?,
                          _ arguments: UnsafePointer<CChar>?, _ sort: UnsafePointer<CChar>?, _ offset: Int, _ limit: Int,
                          _ flags: CUnsignedInt, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let request = FetchRequest(entity: try CString.argument(entity, "entity"),
                                   predicate: try CString.optional(predicate, "predicate"),
                                   arguments: try fetchArguments(arguments), sort: try CString.optional(sort, "sort"),
                                   offset: Int(clamping: UInt(bitPattern: offset)),
                                   limit: limit == 0 ? nil : Int(clamping: UInt(bitPattern: limit)),
                                   includesSubentities: !isSet(MAPPING_FETCH_EXACT_ENTITY, in: flags))
        out.pointee = Registry.lists.add(ListHandle(try handle.core.fetch(request)))
    }
}

/// Exported to C as `mapping_entity_count_where`.
@_cdecl("mapping_entity_count_where")
public func mapping_entity_count_where(_ context: OpaquePointer?, _ entity: UnsafePointer<CChar>?,
                                _ predicate: UnsafePointer<CChar>?, _ arguments: UnsafePointer<CChar>?,
                                _ out: UnsafeMutablePointer<Int>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        let count = try handle.core.count(of: try CString.argument(entity, "entity"),
                                          where: try CString.optional(predicate, "predicate"),
                                          arguments: try fetchArguments(arguments))
        try store(count, into: out)
    }
}
