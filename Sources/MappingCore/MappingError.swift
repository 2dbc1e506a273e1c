/// The one error type of the engine. Its codes are the `MAPPING_E*` constants of `mapping.h`:
/// a code's name and number never change once published, and new codes are added at the end.
public struct MappingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Int32, Sendable, CaseIterable {
        case failed = -1        // MAPPING_ERROR: an internal failure with no better code
        case misuse = -2        // MAPPING_EMISUSE: NULL or wrong argument, re-entrant call
        case spec = -3          // MAPPING_ESPEC: the mapping spec is invalid
        case parse = -4         // MAPPING_EPARSE: malformed JSON
        case type = -5          // MAPPING_ETYPE: a value of the wrong type
        case name = -6          // MAPPING_ENAME: unknown entity, attribute, relationship or mapping
        case notFound = -7      // MAPPING_ENOTFOUND: no object with that identity
        case stale = -8         // MAPPING_ESTALE: a handle to a deleted or foreign object
        case null = -9          // MAPPING_ENULL: the value is null
        case depth = -10        // MAPPING_EDEPTH: input nested too deeply
        case range = -11        // MAPPING_ERANGE: index or number out of range
        case mapping = -12      // MAPPING_EMAPPING: the payload does not fit the mapping
        case denied = -13       // MAPPING_EDENIED: a deny delete rule refused a deletion
        case predicate = -14    // MAPPING_EPREDICATE: a predicate or sort that does not parse or resolve
        case constraint = -15   // MAPPING_ECONSTRAINT: a count or identity rule of the model is broken
        case response = -16     // MAPPING_ERESPONSE: an error status; the message is the payload's
        case unavailable = -17  // MAPPING_EUNAVAILABLE: a feature this build lacks (the simdjson parser)
        case busy = -18         // MAPPING_EBUSY: another thread's transaction outlasted the busy timeout
        case store = -19        // MAPPING_ESTORE: the store's database file cannot be used
        case conflict = -20     // MAPPING_ECONFLICT: another process changed what this commit changes
        case memory = -21       // MAPPING_ENOMEM: memory ran out while parsing a payload
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
