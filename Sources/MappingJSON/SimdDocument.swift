#if MAPPING_SIMDJSON
internal import CSimdJSONLoader
internal import MappingCore

/// The simdjson plugin's functions, once loaded (`csimdjson_loader.h`); nil when it cannot be.
enum SimdPlugin {
    static var api: csimdjson_api? { csimdjson_load()?.pointee }

    /// Why the plugin is not there ("" when it is).
    static var problem: String { csimdjson_load_error().map { String(cString: $0) } ?? "" }
}

/// simdjson's parser with its buffers. Lent to one import at a time by the parser pool.
final class SimdParser: @unchecked Sendable {
    let raw: OpaquePointer
    let api: csimdjson_api

    init?() {
        guard let api = SimdPlugin.api, let raw = api.parser_new() else { return nil }
        self.raw = raw
        self.api = api
    }

    deinit { api.parser_free(raw) }
}

/// A payload parsed by simdjson. Its tape lives in the parser, which the document keeps until it is
/// released and then gives back to the pool for the next import.
final class SimdDocument {
    private let parser: SimdParser
    private let pool: ParserPool
    let reader: TapeReader
    let root = 1  // the tape's first word is the root marker; the value follows it

    private init(parser: SimdParser, pool: ParserPool, reader: TapeReader) {
        self.parser = parser
        self.pool = pool
        self.reader = reader
    }

    /// A parser whose buffers grew past this capacity is freed rather than kept: one large import
    /// must not leave its context holding buffers of about 15 bytes per byte parsed (simdjson's
    /// tape, strings and structural indexes, measured with DHAT; 4.5 of them resident).
    static let largestKeptCapacity = 16 << 20

    deinit { Self.giveBack(parser, to: pool) }

    /// Returns a parser to the pool, unless a large document grew its buffers.
    private static func giveBack(_ parser: SimdParser, to pool: ParserPool) {
        if parser.api.parser_capacity(parser.raw) <= largestKeptCapacity { pool.give(parser) }
    }

    /// The parsed document, or `nil` when jansson must decide: simdjson rejected the text (jansson
    /// then reports where, in its own words, or accepts what simdjson is stricter about) or the text
    /// holds an integer beyond int64, which jansson rejects. Either way both backends agree.
    static func parse(_ bytes: UnsafeRawBufferPointer, pool: ParserPool) -> SimdDocument? {
        guard let parser = (pool.take() as? SimdParser) ?? SimdParser() else { return nil }
        var parsed = csimdjson_document()
        let status = parser.api.parse(parser.raw, bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                                      bytes.count, &parsed)
        guard status == CSIMDJSON_OK, let tape = parsed.tape, let strings = parsed.strings else {
            giveBack(parser, to: pool)
            return nil
        }
        let reader = TapeReader(tape: tape, length: parsed.tape_length, strings: strings,
                                numbers: NumberLiterals(text: bytes))
        return SimdDocument(parser: parser, pool: pool, reader: reader)
    }
}
#endif
