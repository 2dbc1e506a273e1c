/// JSON values written as Swift literals, for Swift callers of the engine: an identity
/// (`object(of: "User", identity: 362803)`), a value to set (`to: "Ada"`), predicate arguments
/// (`arguments: ["PushEvent"]`), a new object's values. An object literal keeps its members in the
/// order written, as `.object` does. Not `nil`: JSON null is `.null`. A `nil` literal that could
/// be a JSONValue would turn `cond ? nil : value` (a `JSONValue?`) into `.some(.null)`, silently.
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
                     ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { JSONMember($0.0, $0.1) })
    }
}
