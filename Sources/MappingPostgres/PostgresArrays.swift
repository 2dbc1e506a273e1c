import MappingSQL

/// A PostgreSQL array literal (`{1,"a b",NULL}`), built value by value: a commit sends each column
/// of a table's rows as one array parameter, which `unnest` turns back into rows, so a commit is a
/// few statements however many rows it writes.
struct ArrayText {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private(set) var count = 0

    mutating func append(_ value: StoredValue) {
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        count += 1
        switch value {
        case .null, .invalidText: bytes += "NULL".utf8
        case .integer(let number): bytes += String(number).utf8
        case .real(let number):
            bytes += StoredValue.real(number).parameter?.utf8 ?? "NULL".utf8
        case .text(let text):
            bytes.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    mutating func append(_ number: Int64) { append(.integer(number)) }

    var literal: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }
}

extension StoredValue {
    /// The value as a text parameter of a statement (nil for NULL): integers in decimal, doubles
    /// as Swift writes them (which round-trip) with PostgreSQL's spelling of the special values.
    var parameter: String? {
        switch self {
        case .null, .invalidText: nil
        case .integer(let number): String(number)
        case .real(let number): number.isNaN ? "NaN" : number.isInfinite ? (number < 0 ? "-Infinity" : "Infinity") : String(number)
        case .text(let text): text
        }
    }
}
