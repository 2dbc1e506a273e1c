/// A JSON value held by Swift: the spec document, `json` attributes and serializer output.
/// Payloads are never copied into this form; the importer reads them through `JSONReader`.
///
/// Only the rare decimal case is boxed (`indirect`): the whole enum was, which made every number,
/// string and boolean of a stored JSON value a heap allocation of its own. Arrays and objects need
/// no box (an array is already a reference to its storage).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// An exact decimal number; written with all its digits.
    indirect case decimal(ExactDecimal)
    case string(String)
    case array([JSONValue])
    /// Members in document order.
    case object([JSONMember])

    /// The member named `key`, if this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .real, .decimal: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

public struct JSONMember: Hashable, Sendable {
    public var key: String
    public var value: JSONValue
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
