public import MappingCore

/// What the engine does with a parsed payload.
public enum PayloadWork: Sendable {
    /// Maps it with these mappings in turn, as one import.
    case importing([String], ImportOptions)
    /// Maps it as the body of this response, with the spec's response descriptors.
    case response(HTTPResponse, ImportOptions)
}

extension MappingContext {
    /// The one way a parsed payload reaches the engine: whichever backend parsed it, its root and
    /// reader are handed to the importer here. The switch over backends lives in this module, where
    /// each reader's type is known, so every call below is to an importer specialized for that
    /// reader (a type-erased document handed to the core was measured at +82% instructions on
    /// jansson and +193% on simdjson: the importer then ran unspecialized).
    public func map(_ payload: ParsedPayload, _ work: PayloadWork) throws(MappingError) -> [ObjectID] {
        switch payload.document {
        case .jansson(let document):
            return try withExtendedLifetime(document) { () throws(MappingError) -> [ObjectID] in
                try run(work, root: document.root, reader: JanssonReader(numbers: document.numbers))
            }
        #if MAPPING_SIMDJSON
        case .simdjson(let document):
            return try withExtendedLifetime(document) { () throws(MappingError) -> [ObjectID] in
                try run(work, root: document.root, reader: document.reader)
            }
        #endif
        }
    }

    private func run<Reader: JSONReader>(_ work: PayloadWork, root: Reader.Node,
                                         reader: Reader) throws(MappingError) -> [ObjectID] {
        switch work {
        case .importing(let mappings, let options):
            try importDocument(mappings: mappings, root: root, reader: reader, options: options)
        case .response(let response, let options):
            try mapResponse(response, root: root, reader: reader, options: options)
        }
    }

    /// Parses `bytes` with the parser `options` name, else the context's.
    public func parsePayload(_ bytes: UnsafeRawBufferPointer, options: ImportOptions) throws(MappingError) -> ParsedPayload {
        try checkInput(bytes)
        return try ParsedPayload.parse(bytes, with: options.parser ?? parser)
    }

    /// Sets the context's parser, refusing one this build lacks.
    public func choose(parser: JSONBackend) throws(MappingError) {
        try ParsedPayload.check(parser)
        self.parser = parser
    }
}
