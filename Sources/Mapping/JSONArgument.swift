import MappingCore
import MappingEngine
import MappingJSON

/// Every JSON argument a C caller passes — identities, values, fetch arguments, metadata, headers,
/// path values, paginator bodies, transformer output — is read here: parsed by jansson (line and
/// column on a malformation) into a `JSONValue`, no deeper than one limit.
enum JSONArgument {
    /// As deep as a stored `json` attribute value may be.
    static let depthLimit = 256

    /// A NUL-terminated argument (`name` says which one in the error for NULL or invalid UTF-8).
    static func parse(_ text: UnsafePointer<CChar>?, _ name: String) throws(MappingError) -> JSONValue {
        try parse(try CString.argument(text, name))
    }

    /// An argument given with its length (MAPPING_NUL_TERMINATED allowed).
    static func parse(_ text: UnsafePointer<CChar>?, length: Int, _ name: String) throws(MappingError) -> JSONValue {
        try parse(try CString.buffer(text, length: UInt(bitPattern: length), name))
    }

    static func parse(_ text: String) throws(MappingError) -> JSONValue {
        try JanssonDocument.parse(text).value(depthLimit: depthLimit)
    }

    static func parse(_ bytes: [UInt8]) throws(MappingError) -> JSONValue {
        try JanssonDocument.parse(bytes).value(depthLimit: depthLimit)
    }

    static func parse(_ bytes: UnsafeRawBufferPointer) throws(MappingError) -> JSONValue {
        try JanssonDocument.parse(bytes).value(depthLimit: depthLimit)
    }
}
