/// A reference to a mapping by what it is: one mapping, or a dynamic mapping that picks one per
/// representation.
public enum MappingRef: Sendable, Equatable {
    case plain(Int)
    case dynamic(Int)
}

/// `{"dynamic": {…}}`: chooses the mapping for each representation (RestKit's RKDynamicMapping).
/// The cases are tried in this order: `matchers` (predicates on the representation, first match wins),
/// the value at `keyPath` looked up in `cases` (compared as text,
/// so `0` matches `"0"` and `true` matches `"true"`), then the JSON type of the value at `keyPath`
/// (or of the representation itself without a key path) in `byType`, then `default`. No match
/// declines the representation: it is skipped inside a collection, an error at the top.
public struct DynamicMappingPlan: Sendable {
    public let name: String
    public let rootPath: KeyPath?
    public let keyPath: KeyPath?
    /// Predicates on the representation, in order, each with its mapping (`nil` declines).
    let matchers: [(predicate: CompiledPredicate, mapping: Int?)]
    /// Case value → mapping index; `nil` declines.
    public let cases: [String: Int?]
    /// JSON type name (`object array string number boolean null`) → mapping index; `nil` declines.
    public let byType: [String: Int?]
    public let defaultMapping: Int?
    /// Every mapping the cases can choose, in spec order, for serialization.
    public let candidates: [Int]

    /// The text a case value is compared as.
    static func caseText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .real, .decimal: value.text()
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array, .object: nil
        }
    }
}
