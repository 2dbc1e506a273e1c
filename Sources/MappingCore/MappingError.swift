public import CMappingHeader

/// The one error type of the engine. Its codes are the `MAPPING_E*` constants of `mapping.h`, the
/// one place their numbers and names are written: each case below is bound to its constant
/// (`constant`), and the C ABI's `mapping_error_name` spells the constant's name (`status_names.h`). A code's name and number never change once published, and
/// new codes are added at the end.
public struct MappingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, CaseIterable, RawRepresentable {
        case failed       // an internal failure with no better code
        case misuse       // NULL or wrong argument, re-entrant call
        case spec         // the mapping spec is invalid
        case parse        // malformed JSON
        case type         // a value of the wrong type
        case name         // unknown entity, attribute, relationship or mapping
        case notFound     // no object with that identity
        case stale        // a handle to a deleted or foreign object
        case null         // the value is null
        case depth        // input nested too deeply
        case range        // index or number out of range
        case mapping      // the payload does not fit the mapping
        case denied       // a deny delete rule refused a deletion
        case predicate    // a predicate or sort that does not parse or resolve
        case constraint   // a count or identity rule of the model is broken
        case response     // an error status; the message is the payload's
        case unavailable  // a feature this build or machine lacks
        case busy         // another thread's transaction outlasted the busy timeout
        case store        // the store's database cannot be used
        case conflict     // another process changed what this commit changes
        case memory       // memory ran out while parsing a payload

        /// The header's constant for the code.
        public var constant: mapping_status {
            switch self {
            case .failed: MAPPING_ERROR
            case .misuse: MAPPING_EMISUSE
            case .spec: MAPPING_ESPEC
            case .parse: MAPPING_EPARSE
            case .type: MAPPING_ETYPE
            case .name: MAPPING_ENAME
            case .notFound: MAPPING_ENOTFOUND
            case .stale: MAPPING_ESTALE
            case .null: MAPPING_ENULL
            case .depth: MAPPING_EDEPTH
            case .range: MAPPING_ERANGE
            case .mapping: MAPPING_EMAPPING
            case .denied: MAPPING_EDENIED
            case .predicate: MAPPING_EPREDICATE
            case .constraint: MAPPING_ECONSTRAINT
            case .response: MAPPING_ERESPONSE
            case .unavailable: MAPPING_EUNAVAILABLE
            case .busy: MAPPING_EBUSY
            case .store: MAPPING_ESTORE
            case .conflict: MAPPING_ECONFLICT
            case .memory: MAPPING_ENOMEM
            }
        }

        /// The code's number, the header's.
        public var rawValue: Int32 { Int32(truncatingIfNeeded: constant.rawValue) }

        public init?(rawValue: Int32) {
            guard let code = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = code
        }
    }

    public var code: Code
    public var message: String
    /// Where in the JSON document (payload or spec) the problem is, as `$.a.b[2]`; empty if none.
    public var path: String
    /// The attribute or relationship concerned, as `Entity.name`; empty if none.
    public var attribute: String
    /// 1-based line and column and 0-based byte position for parse errors; 0 otherwise.
    public var line: Int
    public var column: Int
    public var position: Int

    public init(_ code: Code, _ message: String, path: String = "", attribute: String = "",
                line: Int = 0, column: Int = 0, position: Int = 0) {
        self.code = code
        self.message = message
        self.path = path
        self.attribute = attribute
        self.line = line
        self.column = column
        self.position = position
    }

    public var description: String { message }
}
