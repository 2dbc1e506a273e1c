public import MappingCore

/// A payload parsed by the backend its import asked for (the import's options, else the context's
/// choice). Everything that maps a payload goes through here, so both backends serve every path.
/// It knows nothing of contexts: `MappingContext.map(_:_:)` is the one way a payload reaches the
/// engine.
public struct ParsedPayload {
    enum Document {
        case jansson(JanssonDocument)
        #if MAPPING_SIMDJSON
        case simdjson(SimdDocument)
        #endif
    }

    let document: Document

    /// The parsers this process has: jansson always; simdjson when it was found at build time and
    /// its plugin (libmapping-simdjson.so, which needs libsimdjson) loads.
    public static var available: [JSONBackend] {
        #if MAPPING_SIMDJSON
        SimdPlugin.api == nil ? [.jansson] : [.jansson, .simdjson]
        #else
        [.jansson]
        #endif
    }

    /// Throws `.unavailable` for a parser this process lacks, saying why.
    public static func check(_ parser: JSONBackend) throws(MappingError) {
        guard !available.contains(parser) else { return }
        #if MAPPING_SIMDJSON
        throw MappingError(.unavailable, "the \(parser.name) parser is not available: \(SimdPlugin.problem)")
        #else
        throw MappingError(.unavailable, "this build of libmapping has no \(parser.name) parser "
                               + "(it was built without libsimdjson-dev; see the README)")
        #endif
    }

    /// `bytes` must outlive the payload's import: decimals are read from its digits (`NumberLiterals`).
    public static func parse(_ bytes: UnsafeRawBufferPointer, with parser: JSONBackend) throws(MappingError) -> ParsedPayload {
        try check(parser)
        #if MAPPING_SIMDJSON
        // Text with a NUL byte is malformed: jansson reports where (simdjson would read one after a number
        // as its end).
        if parser == .simdjson, RawNUL.offset(in: bytes) == nil, let document = SimdDocument.parse(bytes, pool: .shared) {
            return ParsedPayload(document: .simdjson(document))
        }
        #endif
        return ParsedPayload(document: .jansson(try JanssonDocument.parse(bytes)))
    }
}
