public import MappingCore
internal import CJansson

extension CompiledSpec {
    /// Parses and validates a spec given as JSON text.
    public static func load(json bytes: UnsafeRawBufferPointer) throws(MappingError) -> CompiledSpec {
        try load(try document(json: bytes))
    }

    /// A spec's JSON text as a value, MAPPING_ESPEC saying where it does not parse.
    public static func document(json bytes: UnsafeRawBufferPointer) throws(MappingError) -> JSONValue {
        do {
            return try JanssonDocument.parse(bytes).value()
        } catch {
            throw MappingError(.spec, "the spec is not valid JSON: " + error.message, line: error.line,
                               column: error.column, position: error.position)
        }
    }

    public static func load(json text: String) throws(MappingError) -> CompiledSpec {
        try withBytes(of: Array(text.utf8)) { (buffer) throws(MappingError) in try load(json: buffer) }
    }
}
