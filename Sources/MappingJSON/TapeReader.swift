#if MAPPING_SIMDJSON
internal import MappingCore
internal import MappingArena
internal import Glibc

/// The importer's view of a document parsed by simdjson, read straight off simdjson's tape (its
/// documented DOM layout, checked against simdjson 3 at compile time in csimdjson.cpp): no call into
/// C++ and no Swift string per key. A node is the index of its first tape word.
///
/// Tape words: the top byte is the kind (`{` `[` `"` `l` `u` `d` `t` `f` `n`); a container's low 32
/// bits give the index just past its closing word and bits 32–55 its element count (saturated at
/// 0xFFFFFF); a string's low 56 bits are an offset into the string buffer, where a little-endian
/// 32-bit length precedes the bytes; a number's value is the next word.
struct TapeReader: JSONReader {
    typealias Node = Int

    let tape: UnsafePointer<UInt64>
    let length: Int
    let strings: UnsafePointer<UInt8>
    /// The text's long number literals: simdjson's tape keeps doubles, not the digits written.
    let numbers: NumberLiterals

    func recoveredDecimal(of node: Int) throws(MappingError) -> ExactDecimal? {
        try recoveredDecimal(of: node, from: numbers)
    }

    private static let valueMask: UInt64 = 0x00FF_FFFF_FFFF_FFFF
    private static let countMask: UInt64 = 0xFF_FFFF

    /// A tape word; 0 (no kind, read as null) outside the tape, so a bad index never reads past it.
    /// One unsigned comparison covers both ends (a negative index is a huge unsigned one).
    @inline(__always) private func word(_ index: Int) -> UInt64 {
        guard UInt(bitPattern: index) < UInt(bitPattern: length) else { return 0 }
        return tape[index]
    }

    @inline(__always) private func tag(_ node: Int) -> UInt8 { UInt8(truncatingIfNeeded: word(node) >> 56) }

    /// The index just past `node`'s value (always beyond `node`, so walks end).
    @inline(__always) private func after(_ node: Int) -> Int {
        switch tag(node) {
        case UInt8(ascii: "{"), UInt8(ascii: "["): max(node + 1, Int(UInt32(truncatingIfNeeded: word(node))))
        case UInt8(ascii: "l"), UInt8(ascii: "u"), UInt8(ascii: "d"): node + 2
        default: node + 1
        }
    }

    /// The bytes of the string at `node` (a key or a value).
    @inline(__always) private func bytes(_ node: Int) -> UnsafeBufferPointer<UInt8> {
        let offset = Int(truncatingIfNeeded: word(node) & Self.valueMask)
        let count = UInt32(littleEndian: UnsafeRawPointer(strings + offset).loadUnaligned(as: UInt32.self))
        return UnsafeBufferPointer(start: strings + offset + 4, count: Int(count))
    }

    func kind(of node: Int) -> JSONKind {
        switch tag(node) {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "l"), UInt8(ascii: "u"): .integer
        case UInt8(ascii: "d"): .real
        case UInt8(ascii: "t"): .true
        case UInt8(ascii: "f"): .false
        default: .null
        }
    }

    /// The last member named `key`: jansson keeps the last of duplicate keys, and so does this.
    func member(of node: Int, key: PlanKey) -> Int? {
        guard tag(node) == UInt8(ascii: "{") else { return nil }
        let end = after(node) - 1
        let wantedCount = key.utf8.count
        var found: Int?
        var index = node + 1
        while index < end {
            // Lengths first, read straight off the string buffer: most keys differ there.
            let offset = Int(truncatingIfNeeded: word(index) & Self.valueMask)
            let count = UInt32(littleEndian: UnsafeRawPointer(strings + offset).loadUnaligned(as: UInt32.self))
            if Int(count) == wantedCount, key.utf8.withUnsafeBufferPointer({ Self.same(bytes(index), $0) }) {
                found = index + 1
            }
            index = after(index + 1)
        }
        return found
    }

    static var identifiesNodes: Bool { true }

    func same(_ a: Int, _ b: Int) -> Bool { a == b }

    /// One walk of the members, each key looked up in the table; a later duplicate overwrites an
    /// earlier one, so each slot ends with the last value, as `member(of:key:)` finds it.
    func gather(_ node: Int, _ table: MemberTable, into nodes: inout [Int?], at base: Int) {
        nodes.withUnsafeMutableBufferPointer { nodes in
            table.clearSlots(of: nodes, at: base)
            guard tag(node) == UInt8(ascii: "{") else { return }
            let end = after(node) - 1
            var index = node + 1
            while index < end {
                if let slot = table.slot(of: bytes(index)), nodes.indices.contains(base + slot) {
                    nodes[base + slot] = index + 1
                }
                index = after(index + 1)
            }
        }
    }

    @inline(__always) private static func same(_ name: UnsafeBufferPointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count == wanted.count else { return false }
        guard let left = name.baseAddress, let right = wanted.baseAddress else { return name.count == 0 }
        return memcmp(left, right, name.count) == 0
    }

    func count(of node: Int) -> Int {
        guard tag(node) == UInt8(ascii: "[") else { return 0 }
        let saved = Int((word(node) >> 32) & Self.countMask)
        guard saved == Int(Self.countMask) else { return saved }
        var count = 0
        forEachElementQuietly(of: node) { _ in count += 1 }
        return count
    }

    func element(of node: Int, at index: Int) -> Int? {
        guard index >= 0 else { return nil }
        var found: Int?
        var position = 0
        forEachElementQuietly(of: node) { element in
            if position == index { found = element }
            position += 1
        }
        return found
    }

    func forEachElement(of node: Int, _ body: (Int, Int) throws(MappingError) -> Void) throws(MappingError) {
        guard tag(node) == UInt8(ascii: "[") else { return }
        let end = after(node) - 1
        var index = node + 1
        var position = 0
        while index < end {
            try body(position, index)
            position += 1
            index = after(index)
        }
    }

    func string(of node: Int) -> String {
        guard tag(node) == UInt8(ascii: "\"") else { return "" }
        return String(decoding: bytes(node), as: UTF8.self)
    }

    func withStringBytes<R>(of node: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard tag(node) == UInt8(ascii: "\"") else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return body(UnsafeRawBufferPointer(bytes(node)))
    }

    /// As jansson's `json_integer_value`: 0 for anything but an integer. (Integers beyond int64 never
    /// reach here: csimdjson hands such documents to jansson, which rejects them.)
    func integer(of node: Int) -> Int64 {
        guard tag(node) == UInt8(ascii: "l") else { return 0 }
        return Int64(bitPattern: word(node + 1))
    }

    /// As jansson's `json_real_value`: 0 for anything but a real.
    func real(of node: Int) -> Double {
        guard tag(node) == UInt8(ascii: "d") else { return 0 }
        return Double(bitPattern: word(node + 1))
    }

    /// Members in document order. A duplicated key is given once, where it first appeared, with
    /// its last value — what jansson's object holds for the same text. Keys are compared as bytes,
    /// as jansson compares them: a Swift `String` key would merge canonically equivalent spellings
    /// (NFC "é" and NFD "é") that jansson keeps apart.
    func forEachMember(of node: Int, _ body: (String, Int) throws(MappingError) -> Void) throws(MappingError) {
        try forEachMemberKey(of: node) { (key, value) throws(MappingError) in
            try body(String(decoding: key.bindMemory(to: UInt8.self), as: UTF8.self), value)
        }
    }

    func forEachMemberKey(of node: Int, _ body: (UnsafeRawBufferPointer, Int) throws(MappingError) -> Void) throws(MappingError) {
        guard tag(node) == UInt8(ascii: "{") else { return }
        let end = after(node) - 1
        if hasUniqueKeys(node) {
            // The common case: members in document order, nothing to merge, nothing allocated.
            var index = node + 1
            while index < end {
                try body(UnsafeRawBufferPointer(bytes(index)), index + 1)
                index = after(index + 1)
            }
            return
        }
        var members: [(key: RawKey, value: Int)] = []
        var positions: [RawKey: Int] = [:]
        var index = node + 1
        while index < end {
            let key = RawKey(bytes: bytes(index))
            if let seen = positions[key] {
                members[seen].value = index + 1
            } else {
                positions[key] = members.count
                members.append((key, index + 1))
            }
            index = after(index + 1)
        }
        for member in members { try body(UnsafeRawBufferPointer(member.key.bytes), member.value) }
    }
}

extension TapeReader {
    /// `JSONWriter.write` straight off the tape: one walk of its words, no closure per member or
    /// element (the generic walk cost a fifth of an import of GitHub's events, whose `payload` is a
    /// `json` attribute). An object with a repeated key (merged as jansson merges it), a real (whose
    /// written digits may matter) and anything else rare go through the generic writer.
    func writeJSON(of node: Int, depthLimit: Int, into output: inout ByteOutput) throws(MappingError) {
        guard depthLimit > 0 else {
            throw MappingError(.depth, "JSON value nested too deeply to store")
        }
        switch tag(node) {
        case UInt8(ascii: "\""):
            JSONWriter.writeString(bytes: bytes(node), into: &output)
        case UInt8(ascii: "l"):
            JSONWriter.writeInteger(integer(of: node), into: &output)
        case UInt8(ascii: "["):
            output.append(UInt8(ascii: "["))
            let end = after(node) - 1
            var index = node + 1
            while index < end {
                if index > node + 1 { output.append(UInt8(ascii: ",")) }
                try writeJSON(of: index, depthLimit: depthLimit - 1, into: &output)
                index = after(index)
            }
            output.append(UInt8(ascii: "]"))
        case UInt8(ascii: "{") where hasUniqueKeys(node):
            output.append(UInt8(ascii: "{"))
            let end = after(node) - 1
            var index = node + 1
            while index < end {
                if index > node + 1 { output.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(bytes: bytes(index), into: &output)
                output.append(UInt8(ascii: ":"))
                try writeJSON(of: index + 1, depthLimit: depthLimit - 1, into: &output)
                index = after(index + 1)
            }
            output.append(UInt8(ascii: "}"))
        case UInt8(ascii: "t"): output.append("true")
        case UInt8(ascii: "f"): output.append("false")
        case UInt8(ascii: "n"): output.append("null")
        default:
            try JSONWriter.write(node, of: self, depthLimit: depthLimit, into: &output)
        }
    }
}

extension TapeReader {
    /// Objects up to this many members are checked for repeated keys by comparing each key with the
    /// ones before it; larger ones through a hash table of their own.
    static let smallObject = 16

    /// Whether an object has no key twice (jansson keeps the last of duplicates, and so must this
    /// reader). A small object compares each key with the ones before it (at most 120 comparisons,
    /// each a length check first); a larger one fills an open-addressing table of its members hashed
    /// from their fingerprints (`Bytes.fingerprint`), not SipHash: GitHub's objects of 70 members
    /// spent a tenth of an import hashing their keys.
    func hasUniqueKeys(_ node: Int) -> Bool {
        let end = after(node) - 1
        var index = node + 1
        var count = 0
        while index < end {
            count += 1
            if count > Self.smallObject { return hasUniqueKeysHashed(node, end: end) }
            let key = bytes(index)
            var earlier = node + 1
            while earlier < index {
                if Self.same(bytes(earlier), key) { return false }
                earlier = after(earlier + 1)
            }
            index = after(index + 1)
        }
        return true
    }

    private func hasUniqueKeysHashed(_ node: Int, end: Int) -> Bool {
        var members = 0
        var index = node + 1
        while index < end {
            members += 1
            index = after(index + 1)
        }
        var size = 32
        while size < members * 2 { size *= 2 }
        let mask = size - 1
        var table = [Int](repeating: -1, count: size)
        index = node + 1
        while index < end {
            let key = bytes(index)
            let (low, high) = Bytes.fingerprint(key)
            var position = Int(truncatingIfNeeded: Bytes.mix(low ^ high &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count))) & mask
            while table.indices.contains(position), table[position] >= 0 {
                if Self.same(bytes(table[position]), key) { return false }
                position = (position + 1) & mask
            }
            if table.indices.contains(position) { table[position] = index }
            index = after(index + 1)
        }
        return true
    }
}

/// A key's bytes in the tape's string buffer, hashed and compared as bytes (valid while the
/// document is).
private struct RawKey: Hashable {
    let bytes: UnsafeBufferPointer<UInt8>

    static func == (a: RawKey, b: RawKey) -> Bool { a.bytes.elementsEqual(b.bytes) }

    func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
}
#endif
