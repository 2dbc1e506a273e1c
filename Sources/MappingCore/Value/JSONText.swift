/// A `json` attribute's value, kept as the compact text `JSONWriter` writes for it: one string in
/// the graph instead of a tree of arrays and strings, written straight from the parser's document
/// when a payload is imported (`JSONReader.jsonText`), copied whole when the graph is serialized or
/// stored, and parsed back into a `JSONValue` only where a tree is needed (a predicate, a host
/// transformer, a connection through an array of identities).
///
/// The text is canonical — no spaces, members in document order, strings escaped and numbers written
/// as `JSONWriter` does — so two values are equal exactly when their texts are, byte for byte.
/// (`0.0` and `-0.0` are two values here: the sign is the payload's.) A decimal that a double holds
/// exactly reads back as a real, and one without a fraction that fits 64 bits as an integer: the
/// text, and so what every reader of the value sees, is the same.
public struct JSONText: Hashable, Sendable {
    /// The canonical text.
    public let text: String

    /// `text` must be canonical: made by `JSONWriter` (nothing else calls this).
    init(canonical text: String) {
        self.text = text
    }

    public init(_ value: JSONValue) {
        self.text = JSONWriter.text(value, pretty: false)
    }

    /// The value as a tree (parsed from the text each time it is asked for).
    public var value: JSONValue {
        var text = text
        return text.withUTF8 { bytes in
            var parser = CanonicalJSONParser(bytes: bytes)
            return parser.value(depth: 0) ?? .null
        }
    }

    /// An object's members, each value its own text (not parsed: a canonical text's parts are
    /// canonical); `nil` if this is not an object.
    public var members: [(key: String, value: JSONText)]? {
        split(keyed: true)?.map { ($0.key ?? "", $0.value) }
    }

    /// An array's elements, each its own text (not parsed); `nil` if this is not an array.
    public var elements: [JSONText]? { split(keyed: false)?.map(\.value) }

    private func split(keyed: Bool) -> [(key: String?, value: JSONText)]? {
        var text = text
        return text.withUTF8 { bytes in
            var parser = CanonicalJSONParser(bytes: bytes)
            return parser.split(keyed: keyed)
        }
    }

    public static func == (a: JSONText, b: JSONText) -> Bool { AttributeValue.sameBytes(a.text, b.text) }

    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// Reads back the text `JSONWriter` writes (compact, escapes `\" \\ \n \r \t \u00XX`, numbers in its
/// forms); it also takes the other escapes and whitespace JSON allows. Total: on text it cannot read
/// it answers `nil` (never the case for a `JSONText`, whose text is always the writer's).
private struct CanonicalJSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    /// Deeper than any tree the importer or a store keeps (both stop far sooner).
    static let maxDepth = 10_000

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count else { return false }
        let matches = word.withUTF8Buffer { wanted in (0..<count).allSatisfy { bytes[offset + $0] == wanted[$0] } }
        if matches { offset += count }
        return matches
    }

    mutating func value(depth: Int) -> JSONValue? {
        guard depth < Self.maxDepth else { return nil }
        skipSpace()
        guard let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            let read = container(readingKeys: false) { parser, _ in
                guard let element = parser.value(depth: depth + 1) else { return false }
                elements.append(element)
                return true
            }
            return read ? .array(elements) : nil
        case UInt8(ascii: "{"):
            var members: [JSONMember] = []
            let read = container(readingKeys: true) { parser, key in
                guard let member = parser.value(depth: depth + 1) else { return false }
                members.append(JSONMember(key ?? "", member))
                return true
            }
            return read ? .object(members) : nil
        default: return number()
        }
    }

    /// The values of the object (`keyed`) or array at the start, each as its own text, with the
    /// members' keys; `nil` for another kind or text it cannot read.
    mutating func split(keyed: Bool) -> [(key: String?, value: JSONText)]? {
        skipSpace()
        guard current == (keyed ? UInt8(ascii: "{") : UInt8(ascii: "[")) else { return nil }
        var parts: [(key: String?, value: JSONText)] = []
        let read = container(readingKeys: true) { parser, key in
            let start = parser.offset
            guard parser.skipValue(depth: 0) else { return false }
            let span = String(decoding: UnsafeBufferPointer(rebasing: parser.bytes[start..<parser.offset]), as: UTF8.self)
            parts.append((key, JSONText(canonical: span)))
            return true
        }
        return read ? parts : nil
    }

    /// Moves past one value without reading it; false for text it cannot read.
    private mutating func skipValue(depth: Int) -> Bool {
        guard depth < Self.maxDepth, let byte = current else { return false }
        switch byte {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            return container(readingKeys: false) { parser, _ in parser.skipValue(depth: depth + 1) }
        default:
            let start = offset
            while let next = current, next != UInt8(ascii: ","), next != UInt8(ascii: "]"), next != UInt8(ascii: "}"),
                  next != UInt8(ascii: ":"), next > 0x20 {
                offset += 1
            }
            return offset > start
        }
    }

    /// The array or object at the current byte, its punctuation read here once for `value`,
    /// `split` and `skipValue`: `part` is given each element or member value (at its first byte,
    /// with the member's key when `readingKeys`, else nil) and moves past it, false for text it
    /// cannot read. False for text this cannot read.
    private mutating func container(readingKeys: Bool, _ part: (inout CanonicalJSONParser, String?) -> Bool) -> Bool {
        guard let open = current, open == UInt8(ascii: "[") || open == UInt8(ascii: "{") else { return false }
        let keyed = open == UInt8(ascii: "{")
        let close = keyed ? UInt8(ascii: "}") : UInt8(ascii: "]")
        offset += 1
        skipSpace()
        if current == close {
            offset += 1
            return true
        }
        while true {
            skipSpace()
            var key: String?
            if keyed {
                guard current == UInt8(ascii: "\"") else { return false }
                if readingKeys {
                    guard let name = string() else { return false }
                    key = name
                } else {
                    guard skipString() else { return false }
                }
                skipSpace()
                guard current == UInt8(ascii: ":") else { return false }
                offset += 1
            }
            skipSpace()
            guard part(&self, key) else { return false }
            skipSpace()
            guard let separator = current else { return false }
            offset += 1
            if separator == close { return true }
            guard separator == UInt8(ascii: ",") else { return false }
        }
    }

    /// Moves past the string at its opening quote without decoding it.
    private mutating func skipString() -> Bool {
        offset += 1
        while let next = current {
            offset += 1
            if next == UInt8(ascii: "\"") { return true }
            if next == UInt8(ascii: "\\") { offset += 1 }  // the escaped byte
        }
        return false
    }

    /// A number as `JSONWriter` writes each kind: digits alone are an integer; a real is the
    /// shortest text that reads back as its double; anything else is an exact decimal.
    private mutating func number() -> JSONValue? {
        let start = offset
        var integral = true
        while let byte = current, byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { integral = false }
            offset += 1
        }
        guard offset > start else { return nil }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        if integral, let number = Int64(text) { return .integer(number) }
        if !integral, let real = Double(text), real.isFinite, real.description == text { return .real(real) }
        return ExactDecimal(parsing: text).map { .decimal($0) }
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - offset >= 4 else { return nil }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            code = code << 4 | UInt32(digit)
            offset += 1
        }
        return code
    }

    /// A string starting at its opening quote; its escapes decoded.
    private mutating func string() -> String? {
        offset += 1
        let start = offset
        // Most strings have no escape: their bytes are taken whole.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") { offset += 1 }
        guard let stop = current else { return nil }
        if stop == UInt8(ascii: "\"") {
            offset += 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(offset - 1)]), as: UTF8.self)
        }
        var decoded = Array(UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        while let byte = current {
            offset += 1
            if byte == UInt8(ascii: "\"") { return String(decoding: decoded, as: UTF8.self) }
            guard byte == UInt8(ascii: "\\") else {
                decoded.append(byte)
                continue
            }
            guard let escape = current else { return nil }
            offset += 1
            switch escape {
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "u"):
                guard var code = hex4() else { return nil }
                // A surrogate pair is one scalar; a lone surrogate becomes U+FFFD, as jansson refuses it.
                if code >= 0xD800, code < 0xDC00, literal("\\u"), let low = hex4(), low >= 0xDC00, low < 0xE000 {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                decoded.append(contentsOf: String(Character(Unicode.Scalar(code) ?? "\u{FFFD}")).utf8)
            default: decoded.append(escape)  // \" \\ \/
            }
        }
        return nil
    }
}
