import CMappingHeader
import MappingCore
import MappingEngine
import MappingJSON

/// The engine's parser for a MAPPING_PARSER_* value; `nil` for MAPPING_PARSER_DEFAULT.
func parserChoice(_ value: CInt) throws(MappingError) -> JSONBackend? {
    if value == CInt(MAPPING_PARSER_DEFAULT.rawValue) { return nil }
    guard let parser = JSONBackend(rawValue: value) else {
        throw MappingError(.range, "\(value) names no parser (MAPPING_PARSER_JANSSON or MAPPING_PARSER_SIMDJSON)")
    }
    return parser
}

/// Exported to C as `mapping_parser_is_available`.
@_cdecl("mapping_parser_is_available")
public func mapping_parser_is_available(_ parser: CInt) -> CInt {
    guard let known = JSONBackend(rawValue: parser) else { return 0 }
    return ParsedPayload.available.contains(known) ? 1 : 0
}

/// Exported to C as `mapping_context_set_parser`.
@_cdecl("mapping_context_set_parser")
public func mapping_context_set_parser(_ context: OpaquePointer?, _ parser: CInt) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        guard let chosen = try parserChoice(parser) else {
            throw MappingError(.range, "MAPPING_PARSER_DEFAULT is for import options; name a parser")
        }
        try handle.core.choose(parser: chosen)
    }
}

/// Exported to C as `mapping_context_set_max_input`.
@_cdecl("mapping_context_set_max_input")
public func mapping_context_set_max_input(_ context: OpaquePointer?, _ bytes: Int) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        handle.core.maxInputSize = Int(clamping: UInt(bitPattern: bytes))
    }
}
