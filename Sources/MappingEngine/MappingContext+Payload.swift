public import MappingCore
import MappingLock
import MappingJSON

/// What the engine does with a parsed payload.
public enum PayloadWork: Sendable {
    /// Maps it with these mappings in turn, as one import.
    case importing([String], ImportOptions)
    /// Maps it as the body of this response, with the spec's response descriptors.
    case response(HTTPResponse, ImportOptions)
}

extension MappingContext {
    /// The one way a parsed payload reaches the engine: an import's payload goes to the importer
    /// specialized for its parser's reader (`ParsedPayload.importDocument`).
    public func map(_ payload: ParsedPayload, _ work: PayloadWork) throws(MappingError) -> [ObjectID] {
        switch work {
        case .importing(let mappings, let options):
            return try importPayload(payload, mappings: mappings, options: options)
        case .response(let response, let options):
            guard let plan = try responseImport(response, hasBody: true, options: options, messages: { wanted in
                (try? payload.read(with: ErrorMessages(wanted: wanted))) ?? []
            }) else { return [] }
            return try importPayload(payload, mappings: plan.mappings, options: plan.options)
        }
    }

    /// Parses `bytes` with the parser `options` name, else the context's.
    public func parsePayload(_ bytes: UnsafeRawBufferPointer, options: ImportOptions) throws(MappingError) -> ParsedPayload {
        try checkInput(bytes)
        return try ParsedPayload.parse(bytes, with: options.parser ?? parser, pool: parsers)
    }

    /// Sets the context's parser, refusing one this build lacks.
    public func choose(parser: JSONBackend) throws(MappingError) {
        try ParsedPayload.check(parser)
        self.parser = parser
    }
}

