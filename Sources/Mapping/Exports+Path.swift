import CMappingHeader
import MappingCore
import MappingEngine
import MappingJSON

/// Exported to C as `mapping_path_match`.
@_cdecl("mapping_path_match")
public func mapping_path_match(_ pattern: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?, _ flags: CUnsignedInt,
                               _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let compiled = try PathPattern(try CString.argument(pattern, "pattern"))
        let text = try CString.argument(path, "path")
        guard let parameters = compiled.match(text, queryParameters: isSet(MAPPING_PATH_QUERY, in: flags)) else {
            throw MappingError(.notFound, "\"\(text)\" does not match the pattern \"\(compiled.text)\"")
        }
        let members = parameters.keys.sorted().map { JSONMember($0, parameters[$0] ?? .null) }
        out.pointee = CString.copy(try readableObject(members).text().utf8)
    }
}

/// Exported to C as `mapping_path_interpolate`.
@_cdecl("mapping_path_interpolate")
public func mapping_path_interpolate(_ pattern: UnsafePointer<CChar>?, _ values: UnsafePointer<CChar>?, _ flags: CUnsignedInt,
                                     _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let compiled = try PathPattern(try CString.argument(pattern, "pattern"))
        let object = try JSONArgument.parse(values, "values")
        out.pointee = CString.copy(compiled.interpolate(values: object, escaping: isSet(MAPPING_PATH_ESCAPE, in: flags)).utf8)
    }
}

/// Exported to C as `mapping_path_interpolate_object`.
@_cdecl("mapping_path_interpolate_object")
public func mapping_path_interpolate_object(_ context: OpaquePointer?, _ pattern: UnsafePointer<CChar>?, _ object: UInt64,
                                     _ flags: CUnsignedInt, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let compiled = try PathPattern(try CString.argument(pattern, "pattern"))
        let path = try handle.core.path(compiled, from: ObjectID(raw: object), escaping: isSet(MAPPING_PATH_ESCAPE, in: flags))
        out.pointee = CString.copy(path.utf8)
    }
}

/// Exported to C as `mapping_query_decode`.
@_cdecl("mapping_query_decode")
public func mapping_query_decode(_ query: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let decoded = QueryString.decode(try CString.argument(query, "query")).map { JSONMember($0.0, $0.1) }
        out.pointee = CString.copy(try readableObject(decoded).text().utf8)
    }
}

/// The object, unless a key holds NUL (a query's `%00`): JSON parsers, ours included, refuse such
/// keys, so the text could not be read back.
private func readableObject(_ members: [JSONMember]) throws(MappingError) -> JSONValue {
    if let bad = members.first(where: { $0.key.utf8.contains(0) }) {
        throw MappingError(.parse, "the query parameter \"\(bad.key.replacing("\u{0}", with: "%00"))\" holds a NUL byte (%00), which a JSON key cannot")
    }
    return .object(members)
}
