public import MappingArena

/// The kinds of JSON value a reader reports.
public enum JSONKind: Sendable {
    case object, array, string, integer, real, `true`, `false`, null
}

/// A key of the mapping plan, encoded once when the spec is loaded so that the importer never
/// builds a `String` for a payload key: readers look members up by these bytes.
public struct PlanKey: Hashable, Sendable {
    public let name: String
    public let utf8: [UInt8]

    public init(_ name: String) {
        self.name = name
        self.utf8 = Array(name.utf8)
    }
}

/// The narrow interface the importer walks a parsed document through. A parser backend implements
/// it over its own tree (MappingJSON over jansson's `json_t`); the importer is generic over it, so
/// each value is read in place and never copied into a Swift tree.
///
/// Every method must be total: asked about a node of another kind, it answers `nil`, `0` or an
/// empty value rather than trapping.
public protocol JSONReader {
    associatedtype Node

    func kind(of node: Node) -> JSONKind
    /// The member named `key` of an object; `nil` if absent or if `node` is not an object.
    func member(of node: Node, key: PlanKey) -> Node?
    /// The number of elements of an array; 0 for other kinds.
    func count(of node: Node) -> Int
    /// The element at `index` of an array; `nil` when out of range or not an array.
    func element(of node: Node, at index: Int) -> Node?
    func string(of node: Node) -> String
    /// Calls `body` with a string's UTF-8 bytes where the parser keeps them (no `String` is made);
    /// empty for other kinds. The bytes are valid only during the call.
    func withStringBytes<R>(of node: Node, _ body: (UnsafeRawBufferPointer) -> R) -> R
    func integer(of node: Node) -> Int64
    func real(of node: Node) -> Double
    /// Calls `body` with each element of an array in order, with its index; nothing for other kinds.
    /// Readers whose arrays are not indexable in constant time implement it as a walk.
    func forEachElement(of node: Node, _ body: (Int, Node) throws(MappingError) -> Void) throws(MappingError)
    /// Calls `body` with each member of an object in document order; nothing for other kinds.
    func forEachMember(of node: Node, _ body: (String, Node) throws(MappingError) -> Void) throws(MappingError)
    /// `forEachMember` with each key's UTF-8 bytes where the parser keeps them (no `String` made);
    /// the bytes are valid only during the call.
    func forEachMemberKey(of node: Node, _ body: (UnsafeRawBufferPointer, Node) throws(MappingError) -> Void) throws(MappingError)
    /// Appends the subtree at `node` as canonical JSON text (`JSONWriter`'s), at most `depthLimit`
    /// levels deep. The default walks the reader's interface; a reader may walk its document directly.
    func writeJSON(of node: Node, depthLimit: Int, into output: inout ByteOutput) throws(MappingError)
    /// The decimal a real number was written as when its double rounded it (`nil` when the double
    /// is exact); `.range` when the text spelled several numbers that round to it (see `NumberLiterals`).
    func recoveredDecimal(of node: Node) throws(MappingError) -> ExactDecimal?

    /// Whether `same(_:_:)` can tell a node from another cheaply, so the importer gathers each
    /// representation's members once (`gather`) and knows the representation again when it reads them.
    static var identifiesNodes: Bool { get }
    /// Whether `a` and `b` are the same node of the document (false when the reader cannot tell).
    func same(_ a: Node, _ b: Node) -> Bool
    /// Sets `nodes[base + slot]` for every slot of `table` to what `member(of: node, key:)` finds
    /// for its key (`nil` when the object lacks it; the last value of a key the object has twice),
    /// in one walk of the members where the reader can.
    func gather(_ node: Node, _ table: MemberTable, into nodes: inout [Node?], at base: Int)
}

extension JSONReader {
    public static var identifiesNodes: Bool { false }

    public func same(_ a: Node, _ b: Node) -> Bool { false }

    public func gather(_ node: Node, _ table: MemberTable, into nodes: inout [Node?], at base: Int) {
        for (slot, key) in table.keys.enumerated() where nodes.indices.contains(base + slot) {
            nodes[base + slot] = member(of: node, key: key)
        }
    }

    public func forEachMemberKey(of node: Node,
                                 _ body: (UnsafeRawBufferPointer, Node) throws(MappingError) -> Void) throws(MappingError) {
        try forEachMember(of: node) { (key, value) throws(MappingError) in
            var failure: MappingError?
            Array(key.utf8).withUnsafeBytes { bytes in
                do throws(MappingError) { try body(bytes, value) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    public func forEachElement(of node: Node, _ body: (Int, Node) throws(MappingError) -> Void) throws(MappingError) {
        for index in 0..<count(of: node) {
            if let element = element(of: node, at: index) { try body(index, element) }
        }
    }

    /// A copy of the subtree at `node` as a `JSONValue` (for `json` attributes), at most
    /// `depthLimit` levels deep.
    public func copyValue(of node: Node, depthLimit: Int) throws(MappingError) -> JSONValue {
        guard depthLimit > 0 else {
            throw MappingError(.depth, "JSON value nested too deeply to store")
        }
        switch kind(of: node) {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .integer: return .integer(integer(of: node))
        case .real:
            // A number the double would round keeps its digits as a decimal.
            if let written = try recoveredDecimal(of: node) { return .decimal(written) }
            return .real(real(of: node))
        case .string: return .string(string(of: node))
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(count(of: node))
            try forEachElement(of: node) { (_, element) throws(MappingError) in
                elements.append(try copyValue(of: element, depthLimit: depthLimit - 1))
            }
            return .array(elements)
        case .object:
            var members: [JSONMember] = []
            try forEachMember(of: node) { (key, value) throws(MappingError) in
                members.append(JSONMember(key, try copyValue(of: value, depthLimit: depthLimit - 1)))
            }
            return .object(members)
        }
    }
}

extension JSONReader {
    /// For readers that only make `String`s: the bytes of the one `string(of:)` makes.
    public func withStringBytes<R>(of node: Node, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        var text = string(of: node)
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// The answer of readers that do not know the text they read: the double is taken as exact.
    public func recoveredDecimal(of node: Node) throws(MappingError) -> ExactDecimal? { nil }

    /// `recoveredDecimal` for readers that hold the text's `NumberLiterals`.
    public func recoveredDecimal(of node: Node, from numbers: NumberLiterals?) throws(MappingError) -> ExactDecimal? {
        guard let numbers, kind(of: node) == .real else { return nil }
        switch numbers.written(real(of: node)) {
        case .exact: return nil
        case .decimal(let written): return written
        case .ambiguous:
            throw MappingError(.range, "the number \(real(of: node)) has more digits than a double keeps, and the payload "
                               + "spells several numbers that round to it; send exact decimals as strings")
        }
    }

    /// `forEachElement` for a body that cannot fail.
    public func forEachElementQuietly(of node: Node, _ body: (Node) -> Void) {
        try? forEachElement(of: node) { (_, element) throws(MappingError) in body(element) }
    }
}
