/// Reads a Swift-held `JSONValue` through the same interface the importer uses for parsed payloads;
/// used for spec defaults and by tests that build documents in Swift.
public struct JSONValueReader: JSONReader {
    public init() {}

    public func kind(of node: JSONValue) -> JSONKind {
        switch node {
        case .null: .null
        case .bool(let b): b ? .true : .false
        case .integer: .integer
        case .real, .decimal: .real
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    public func member(of node: JSONValue, key: PlanKey) -> JSONValue? { node[key.name] }

    public func count(of node: JSONValue) -> Int {
        if case .array(let elements) = node { return elements.count }
        return 0
    }

    public func element(of node: JSONValue, at index: Int) -> JSONValue? {
        guard case .array(let elements) = node, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public func string(of node: JSONValue) -> String {
        if case .string(let s) = node { return s }
        return ""
    }

    public func integer(of node: JSONValue) -> Int64 {
        if case .integer(let i) = node { return i }
        return 0
    }

    /// A decimal value is read back with its digits, not as the double it rounds to.
    public func recoveredDecimal(of node: JSONValue) throws(MappingError) -> ExactDecimal? {
        if case .decimal(let exact) = node { return exact }
        return nil
    }

    public func real(of node: JSONValue) -> Double {
        switch node {
        case .real(let d): d
        case .decimal(let d): d.doubleValue
        case .integer(let i): Double(i)
        default: 0
        }
    }

    public func forEachMember(of node: JSONValue,
                              _ body: (String, JSONValue) throws(MappingError) -> Void) throws(MappingError) {
        guard case .object(let members) = node else { return }
        for member in members { try body(member.key, member.value) }
    }
}
