public import MappingCore
import MappingLock
import MappingJSON

extension MappingContext {
    /// A context for a spec given as JSON text.
    public convenience init(specJSON text: String,
                            onInvariantViolation: (@Sendable ([String]) -> Void)? = nil) throws(MappingError) {
        try self.init(spec: try CompiledSpec.load(json: text), onInvariantViolation: onInvariantViolation)
    }

    /// Parses `bytes` and maps them with the named mapping, all or nothing. Parsing happens before
    /// the context's lock is taken, so other threads keep reading meanwhile.
    public func importJSON(mapping: String, _ bytes: UnsafeRawBufferPointer,
                           options: ImportOptions = ImportOptions()) throws(MappingError) -> [ObjectID] {
        try map(try parsePayload(bytes, options: options), .importing([mapping], options))
    }

    public func importJSON(mapping: String, _ text: String,
                           options: ImportOptions = ImportOptions()) throws(MappingError) -> [ObjectID] {
        try withBytes(of: Array(text.utf8)) { (buffer) throws(MappingError) in
            try importJSON(mapping: mapping, buffer, options: options)
        }
    }
}

extension MappingContext {
    /// Parses a response body (empty: no body) and maps it with the spec's response descriptors.
    public func mapResponse(_ response: HTTPResponse, body: UnsafeRawBufferPointer,
                            options: ImportOptions = ImportOptions()) throws(MappingError) -> [ObjectID] {
        let isBlank = body.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard !isBlank else {
            return try mapResponse(response, root: nil as JSONValue?, reader: JSONValueReader(), options: options)
        }
        return try map(try parsePayload(body, options: options), .response(response, options))
    }

    public func mapResponse(_ response: HTTPResponse, body text: String,
                            options: ImportOptions = ImportOptions()) throws(MappingError) -> [ObjectID] {
        try withBytes(of: Array(text.utf8)) { (buffer) throws(MappingError) in try mapResponse(response, body: buffer, options: options) }
    }
}
