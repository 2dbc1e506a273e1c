public import MappingCore

/// A payload parsed by the backend its import asked for (the import's options, else the context's
/// choice). Everything that maps a payload goes through here, so both backends serve every path.
/// It knows nothing of contexts: the engine hands it a `PayloadConsumer` (`read(with:)`), so the
/// parsers' trees and tapes never leave this module.
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
    /// simdjson's parser comes from `pool` and goes back to it (a context passes its own; the
    /// default, a pool of this parse alone, frees the parser with the payload).
    package static func parse(_ bytes: UnsafeRawBufferPointer, with parser: JSONBackend,
                              pool: ParserPool = ParserPool()) throws(MappingError) -> ParsedPayload {
        try check(parser)
        #if MAPPING_SIMDJSON
        // Text with a NUL byte is malformed: jansson reports where (simdjson would read one after a number
        // as its end).
        if parser == .simdjson, RawNUL.offset(in: bytes) == nil, let document = SimdDocument.parse(bytes, pool: pool) {
            return ParsedPayload(document: .simdjson(document))
        }
        #endif
        return ParsedPayload(document: .jansson(try JanssonDocument.parse(bytes)))
    }
}

/// Work done on a parsed payload's root through its reader: generic over the reader, so the work
/// runs specialized for each parser's reader type (a type-erased reader was measured at +82%
/// instructions on jansson and +193% on simdjson: the importer then ran unspecialized).
public protocol PayloadConsumer {
    associatedtype Result
    func consume<Reader: JSONReader>(root: Reader.Node, reader: Reader) throws(MappingError) -> Result
}

extension ParsedPayload {
    /// Hands the payload's root and reader to `consumer`, keeping the document alive meanwhile.
    public func read<Consumer: PayloadConsumer>(with consumer: Consumer) throws(MappingError) -> Consumer.Result {
        switch document {
        case .jansson(let document):
            return try withExtendedLifetime(document) { () throws(MappingError) -> Consumer.Result in
                try consumer.consume(root: document.root, reader: JanssonReader(numbers: document.numbers))
            }
        #if MAPPING_SIMDJSON
        case .simdjson(let document):
            return try withExtendedLifetime(document) { () throws(MappingError) -> Consumer.Result in
                try consumer.consume(root: document.root, reader: document.reader)
            }
        #endif
        }
    }
}

extension ParsedPayload {
    /// Maps the payload into `store` with `mappings` in turn, as one transaction: the import's hot
    /// path. The readers are this module's, so the importer is specialized here with their methods
    /// inlined (specialized in the engine, which cannot inline them, it ran 7% more instructions
    /// on simdjson).
    public func importDocument(_ mappings: [MappingRef], into store: inout ObjectStore, spec: CompiledSpec,
                               hosts: [String: HostTransformer], options: ImportOptions) throws(MappingError) -> [ObjectID] {
        switch document {
        case .jansson(let document):
            return try withExtendedLifetime(document) { () throws(MappingError) -> [ObjectID] in
                try store.importDocument(mappings, root: document.root, reader: JanssonReader(numbers: document.numbers),
                                         spec: spec, hosts: hosts, options: options)
            }
        #if MAPPING_SIMDJSON
        case .simdjson(let document):
            return try withExtendedLifetime(document) { () throws(MappingError) -> [ObjectID] in
                try store.importDocument(mappings, root: document.root, reader: document.reader,
                                         spec: spec, hosts: hosts, options: options)
            }
        #endif
        }
    }
}
