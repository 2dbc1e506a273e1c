/// A stored attribute value. A missing or null value is `nil` where an `AttributeValue?` is stored.
public enum AttributeValue: Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case double(Double)
    /// Boxed: an exact decimal is three fields wide, and unboxed it made every value (and every
    /// optional value the store holds) that wide and slower to copy; decimals are rare.
    indirect case decimal(ExactDecimal)
    case boolean(Bool)
    case date(Timestamp)
    case json(JSONValue)

    public var type: AttributeType {
        switch self {
        case .string: .string
        case .integer: .integer
        case .double: .double
        case .decimal: .decimal
        case .boolean: .boolean
        case .date: .date
        case .json: .json
        }
    }

    /// The value as the JSON the serializer writes: dates as ISO-8601 text, decimals as exact numbers.
    public var jsonValue: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .double(let d): .real(d)
        case .decimal(let d): .decimal(d)
        case .boolean(let b): .bool(b)
        case .date(let t): .string(t.iso8601)
        case .json(let j): j
        }
    }
}
