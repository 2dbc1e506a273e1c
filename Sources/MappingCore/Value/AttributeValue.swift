import MappingArena

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
    /// Kept as its canonical text (see `JSONText`).
    case json(JSONText)

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

    /// A `json` value made from a tree (its text written once, here).
    public static func json(_ value: JSONValue) -> AttributeValue { .json(JSONText(value)) }

    /// The value as the JSON the serializer writes: dates as ISO-8601 text, decimals as exact numbers.
    public var jsonValue: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .double(let d): .real(d)
        case .decimal(let d): .decimal(d)
        case .boolean(let b): .bool(b)
        case .date(let t): .string(t.iso8601)
        case .json(let j): j.value
        }
    }

    /// The value as JSON text (`jsonValue` written; a `json` value's own text, not parsed and written again).
    public var jsonText: String {
        if case .json(let json) = self { return json.text }
        return jsonValue.text()
    }
}

/// Strings are equal when their UTF-8 bytes are, as JSON keys are and as jansson compares them:
/// Swift's `String` equality would make canonically equivalent spellings (NFC "é" and NFD "é")
/// one identity, one index entry and one predicate match. Other cases compare as their payloads do.
extension AttributeValue {
    public static func == (a: AttributeValue, b: AttributeValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return sameBytes(x, y)
        case (.integer(let x), .integer(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.decimal(let x), .decimal(let y)): return x == y
        case (.boolean(let x), .boolean(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y
        case (.json(let x), .json(let y)): return x == y
        default: return false
        }
    }

    /// Whether two strings have the same UTF-8 bytes. `String ==` goes first: it is a memcmp for the
    /// common (ASCII or NFC) strings, and unequal strings cannot have equal bytes; only strings it
    /// calls equal have their bytes compared, through contiguous storage when they have it (a
    /// generic walk of the UTF-8 views costs ten times as much on the import's hot path).
    static func sameBytes(_ x: String, _ y: String) -> Bool {
        guard x == y else { return false }
        let compared = x.utf8.withContiguousStorageIfAvailable { a in
            y.utf8.withContiguousStorageIfAvailable { b in Bytes.equal(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) }
        }
        return (compared ?? nil) ?? x.utf8.elementsEqual(y.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let text):
            hasher.combine(0 as UInt8)
            hasher.combine(text.utf8.count)
            let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            if hashed == nil { for byte in text.utf8 { hasher.combine(byte) } }
        case .integer(let number): hasher.combine(1 as UInt8); hasher.combine(number)
        case .double(let number): hasher.combine(2 as UInt8); hasher.combine(number)
        case .decimal(let number): hasher.combine(3 as UInt8); hasher.combine(number)
        case .boolean(let flag): hasher.combine(4 as UInt8); hasher.combine(flag)
        case .date(let instant): hasher.combine(5 as UInt8); hasher.combine(instant)
        case .json(let json): hasher.combine(6 as UInt8); hasher.combine(json)
        }
    }
}
