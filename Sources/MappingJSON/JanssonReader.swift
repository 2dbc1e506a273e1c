internal import CJansson
internal import MappingCore

/// The importer's view of a jansson tree. Nodes are borrowed `json_t` pointers, valid while the
/// `JanssonDocument` that owns the tree is alive. Keys are looked up with the plan's pre-encoded
/// bytes (`json_object_getn`), so no Swift string is made for a payload key.
struct JanssonReader: JSONReader {
    typealias Node = UnsafeMutablePointer<json_t>

    /// The document's long number literals, to give decimals their written digits (nil: none known).
    var numbers: NumberLiterals?

    func recoveredDecimal(of node: Node) throws(MappingError) -> ExactDecimal? {
        try recoveredDecimal(of: node, from: numbers)
    }

    func kind(of node: Node) -> JSONKind {
        switch cjansson_type(node) {
        case Int32(JSON_OBJECT.rawValue): .object
        case Int32(JSON_ARRAY.rawValue): .array
        case Int32(JSON_STRING.rawValue): .string
        case Int32(JSON_INTEGER.rawValue): .integer
        case Int32(JSON_REAL.rawValue): .real
        case Int32(JSON_TRUE.rawValue): .true
        case Int32(JSON_FALSE.rawValue): .false
        default: .null
        }
    }

    func member(of node: Node, key: PlanKey) -> Node? {
        key.utf8.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                json_object_getn(node, chars.baseAddress, chars.count)
            }
        }
    }

    static var identifiesNodes: Bool { true }

    func same(_ a: Node, _ b: Node) -> Bool { a == b }

    /// One walk of the object's members, each key looked up in the table (a jansson object holds
    /// each key once): jansson's own lookup hashes the key and compares it, about 130 instructions
    /// for each key a mapping reads.
    func gather(_ node: Node, _ table: MemberTable, into nodes: inout [Node?], at base: Int) {
        nodes.withUnsafeMutableBufferPointer { nodes in
            table.clearSlots(of: nodes, at: base)
            var iterator = json_object_iter(node)
            while let current = iterator {
                if let key = json_object_iter_key(current), let value = json_object_iter_value(current) {
                    let name = UnsafeBufferPointer(start: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self),
                                                   count: json_object_iter_key_len(current))
                    if let slot = table.slot(of: name), nodes.indices.contains(base + slot) { nodes[base + slot] = value }
                }
                iterator = json_object_iter_next(node, current)
            }
        }
    }

    func count(of node: Node) -> Int { json_array_size(node) }

    func element(of node: Node, at index: Int) -> Node? {
        guard index >= 0 else { return nil }
        return json_array_get(node, index)
    }

    func string(of node: Node) -> String {
        guard let chars = json_string_value(node) else { return "" }
        let length = json_string_length(node)
        return chars.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
    }

    func withStringBytes<R>(of node: Node, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard let chars = json_string_value(node) else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return body(UnsafeRawBufferPointer(start: UnsafeRawPointer(chars), count: json_string_length(node)))
    }

    func integer(of node: Node) -> Int64 { Int64(json_integer_value(node)) }

    func real(of node: Node) -> Double { json_real_value(node) }

    func forEachMember(of node: Node, _ body: (String, Node) throws(MappingError) -> Void) throws(MappingError) {
        try forEachMemberKey(of: node) { (key, value) throws(MappingError) in
            try body(String(decoding: key.bindMemory(to: UInt8.self), as: UTF8.self), value)
        }
    }

    func forEachMemberKey(of node: Node, _ body: (UnsafeRawBufferPointer, Node) throws(MappingError) -> Void) throws(MappingError) {
        var iterator = json_object_iter(node)
        while let current = iterator {
            if let keyChars = json_object_iter_key(current), let value = json_object_iter_value(current) {
                try body(UnsafeRawBufferPointer(start: UnsafeRawPointer(keyChars), count: json_object_iter_key_len(current)), value)
            }
            iterator = json_object_iter_next(node, current)
        }
    }
}
