public import MappingCore

/// A payload parsed by the backend its import asked for (the import's options, else the context's
/// choice). Everything that maps a payload goes through here, so both backends serve every path.
///
/// The payload calls back into the context with its concrete reader (`importInto`, `mapResponse`)
/// rather than handing the context a type-erased document: the importer is generic over the
/// reader, and only a call made where the reader's type is known gets the specialized importer
/// (a visitor protocol in the core was measured at +82% instructions on jansson, +193% on simdjson).
public struct ParsedPayload {
    private enum Document {
        case jansson(JanssonDocument)
        #if MAPPING_SIMDJSON
        case simdjson(SimdDocument)
        #endif
    }

    private let document: Document

    /// The parsers this build has: jansson always; simdjson when it was found at build time.
    public static var available: [JSONBackend] {
        #if MAPPING_SIMDJSON
        [.jansson, .simdjson]
        #else
        [.jansson]
        #endif
    }

    /// Throws `.unavailable` for a parser this build lacks.
    public static func check(_ parser: JSONBackend) throws(MappingError) {
        guard available.contains(parser) else {
            throw MappingError(.unavailable, "this build of libmapping has no \(parser.name) parser "
                                   + "(it was built without libsimdjson-dev; see the README)")
        }
    }

    /// `bytes` must outlive the payload's import: decimals are read from its digits (`NumberLiterals`).
    public static func parse(_ bytes: UnsafeRawBufferPointer, with parser: JSONBackend) throws(MappingError) -> ParsedPayload {
        try check(parser)
        #if MAPPING_SIMDJSON
        if parser == .simdjson, let document = SimdDocument.parse(bytes, pool: .shared) {
            return ParsedPayload(document: .simdjson(document))
        }
        #endif
        return ParsedPayload(document: .jansson(try JanssonDocument.parse(bytes)))
    }

    /// Maps the payload with several mappings and options, as one import.
    public func importInto(_ context: MappingContext, mappings: [String],
                           options: ImportOptions) throws(MappingError) -> [ObjectID] {
        switch document {
        case .jansson(let document):
            return try document.importInto(context, mappings: mappings, options: options)
        #if MAPPING_SIMDJSON
        case .simdjson(let document):
            return try withExtendedLifetime(document) { () throws(MappingError) -> [ObjectID] in
                try context.importDocument(mappings: mappings, root: document.root, reader: document.reader, options: options)
            }
        #endif
        }
    }

    /// Maps the payload as a response body with the spec's response descriptors.
    func mapResponse(_ response: HTTPResponse, into context: MappingContext,
                     options: ImportOptions) throws(MappingError) -> [ObjectID] {
        switch document {
        case .jansson(let document):
            return try withExtendedLifetime(document) { () throws(MappingError) -> [ObjectID] in
                try context.mapResponse(response, root: document.root, reader: JanssonReader(numbers: document.numbers), options: options)
            }
        #if MAPPING_SIMDJSON
        case .simdjson(let document):
            return try withExtendedLifetime(document) { () throws(MappingError) -> [ObjectID] in
                try context.mapResponse(response, root: document.root, reader: document.reader, options: options)
            }
        #endif
        }
    }
}

extension MappingContext {
    /// Parses `bytes` with the parser `options` name, else the context's.
    public func parsePayload(_ bytes: UnsafeRawBufferPointer, options: ImportOptions) throws(MappingError) -> ParsedPayload {
        try checkInputSize(bytes.count)
        return try ParsedPayload.parse(bytes, with: options.parser ?? parser)
    }

    /// Sets the context's parser, refusing one this build lacks.
    public func choose(parser: JSONBackend) throws(MappingError) {
        try ParsedPayload.check(parser)
        self.parser = parser
    }
}
