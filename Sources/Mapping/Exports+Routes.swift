import MappingCore

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
        let path = try handle.core.routePath(name: name.map { String(cString: $0) }, object: object == 0 ? nil : ObjectID(raw: object),
                                             relationship: relationship.map { String(cString: $0) }, method: methods,
                                             escaping: flags & 1 != 0)
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
