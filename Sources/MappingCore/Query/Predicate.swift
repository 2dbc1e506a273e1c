/// A parsed predicate: NSPredicate's language over the graph. Parsed once, then
/// compiled against an entity (`CompiledPredicate`) so key paths are resolved before any object is
/// looked at.
indirect enum Predicate: Sendable {
    case constant(Bool)
    case not(Predicate)
    case and([Predicate])
    case or([Predicate])
    case comparison(Comparison)
}

struct Comparison: Sendable {
    enum Aggregate: Sendable { case any, all, noneOf }

    enum Operator: String, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case `in` = "IN", contains = "CONTAINS", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH"
        case like = "LIKE", matches = "MATCHES", between = "BETWEEN"
    }

    let aggregate: Aggregate?
    let left: Expression
    let op: Operator
    let right: Expression
    /// `[c]`: case-insensitive; `[d]`: diacritic-insensitive.
    let caseInsensitive: Bool
    let diacriticInsensitive: Bool
    /// Where the comparison starts in the predicate text, for errors (1-based).
    let column: Int
}

indirect enum Expression: Sendable {
    /// A key path from the object: attribute and relationship names; `count` for a trailing `@count`.
    case keyPath([String], count: Bool, column: Int)
    case literal(JSONValue)
    /// The n-th `%@` (0-based), bound from the arguments.
    case argument(Int, column: Int)
    case list([Expression])
    /// `SELF`: the object itself.
    case this
}
