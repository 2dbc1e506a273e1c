import CMappingHeader
import MappingCore
import MappingEngine
import MappingJSON

/// Exported to C as `mapping_route_path`.
@_cdecl("mapping_route_path")
public func mapping_route_path(_ context: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ object: UInt64,
                               _ relationship: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?, _ flags: CUnsignedInt,
                               _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let methodName = try CString.argument(method, "method")
        guard let methods = HTTPMethods(name: methodName), methods != .any else {
            throw MappingError(.misuse, "\"\(methodName)\" is not an HTTP method")
        }
        let path = try handle.core.routePath(name: try CString.optional(name, "name"), object: object == 0 ? nil : ObjectID(raw: object),
                                             relationship: try CString.optional(relationship, "relationship"), method: methods,
                                             escaping: isSet(MAPPING_PATH_ESCAPE, in: flags))
        out.pointee = CString.copy(path.utf8)
    }
}

/// Exported to C as `mapping_url_resolve`.
@_cdecl("mapping_url_resolve")
public func mapping_url_resolve(_ base: UnsafePointer<CChar>?, _ reference: UnsafePointer<CChar>?,
                                _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let resolved = URLResolution.resolve(try CString.argument(reference, "reference"), against: try CString.argument(base, "base"))
        out.pointee = CString.copy(resolved.utf8)
    }
}

/// Exported to C as `mapping_response_map`.
@_cdecl("mapping_response_map")
public func mapping_response_map(_ context: OpaquePointer?, _ response: UnsafePointer<mapping_response>?,
                                 _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        let given = try ResponseStruct.read(response)
        let methodName = try CString.optional(given.method, "method") ?? "GET"
        guard given.status != 0 else { throw MappingError(.misuse, "the response has no status: set mapping_response.status") }
        guard let method = HTTPMethods(name: methodName), method != .any else {
            throw MappingError(.misuse, "\"\(methodName)\" is not an HTTP method")
        }
        var headers = JSONValue.null
        if let text = given.headers { headers = try JSONArgument.parse(text, "headers") }
        let request = HTTPResponse(method: method, url: try CString.argument(given.url, "url"), status: Int(given.status),
                                   headers: headers, baseURL: try CString.optional(given.base_url, "base_url"),
                                   target: given.target != 0 ? ObjectID(raw: given.target) : nil)
        var options = ImportOptions()
        if let entity = given.orphan_entity, method == .get {
            options.orphanScope = (try CString.argument(entity, "orphan_entity"), try CString.optional(given.orphan_predicate, "orphan_predicate"))
        }
        let objects: [ObjectID]
        if given.body == nil {
            objects = try handle.core.mapResponse(request, body: UnsafeRawBufferPointer(start: nil, count: 0), options: options)
        } else {
            objects = try handle.core.mapResponse(request, body: try CString.buffer(given.body, length: UInt(bitPattern: given.body_len), "body"),
                                                  options: options)
        }
        if let out { out.pointee = Registry.lists.add(ListHandle(objects)) }
    }
}

/// Exported to C as `mapping_list_parameters`.
@_cdecl("mapping_list_parameters")
public func mapping_list_parameters(_ context: OpaquePointer?, _ objects: OpaquePointer?, _ method: UnsafePointer<CChar>?,
                               _ flags: CUnsignedInt, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let list = try Registry.list(objects)
        let methodName = try CString.argument(method, "method")
        guard let methods = HTTPMethods(name: methodName), methods != .any else {
            throw MappingError(.misuse, "\"\(methodName)\" is not an HTTP method")
        }
        let text = try handle.core.parameters(for: list.objects, method: methods, form: isSet(MAPPING_SERIALIZE_FORM, in: flags))
        out.pointee = CString.copy(text.utf8)
    }
}

/// Reads a caller's `mapping_response` by its version (version 2 added the orphan fields).
/// Exported to C as `mapping_response_init`.
@_cdecl("mapping_response_init")
public func mapping_response_init(_ response: UnsafeMutablePointer<mapping_response>?, _ version: CUnsignedInt) -> CInt {
    initVersioned(response, version: version, sizes: ResponseStruct.sizes, name: "mapping_response")
}

enum ResponseStruct {
    /// The bytes of each version: version 2 added the orphan fields.
    static let sizes = [MemoryLayout<mapping_response>.offset(of: \mapping_response.orphan_entity) ?? 0,
                        MemoryLayout<mapping_response>.size]

    static func read(_ pointer: UnsafePointer<mapping_response>?) throws(MappingError) -> mapping_response {
        guard let pointer else { throw MappingError(.misuse, "the response is NULL") }
        return try readVersioned(pointer, empty: mapping_response(), sizes: sizes, name: "mapping_response")
    }
}
