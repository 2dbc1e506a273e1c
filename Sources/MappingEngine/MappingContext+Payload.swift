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
    /// The one way a parsed payload reaches the engine: whichever backend parsed it, its root and
    /// reader are handed to the importer here, specialized for that reader (`PayloadConsumer`).
    public func map(_ payload: ParsedPayload, _ work: PayloadWork) throws(MappingError) -> [ObjectID] {
        try payload.read(with: PayloadMapper(context: self, work: work))
    }

    fileprivate func run<Reader: JSONReader>(_ work: PayloadWork, root: Reader.Node,
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

/// `MappingContext.map`'s work on a payload's reader.
private struct PayloadMapper: PayloadConsumer {
    typealias Result = [ObjectID]
    let context: MappingContext
    let work: PayloadWork

    func consume<Reader: JSONReader>(root: Reader.Node, reader: Reader) throws(MappingError) -> [ObjectID] {
        try context.run(work, root: root, reader: reader)
    }
}
