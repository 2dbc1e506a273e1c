import MappingArena

/// Writes a `JSONValue` as JSON text. Numbers keep their exact form: integers as digits, doubles in
/// the shortest form that reads back as the same double, decimals with every digit. (jansson's
/// dumper prints doubles with 17 significant digits, `0.1` as `0.10000000000000001`, and has no way
/// to write an exact decimal, which is why output is written here.)
package enum JSONWriter {
    package static func text(_ value: JSONValue, pretty: Bool) -> String {
        var output = ByteOutput()
        write(value, into: &output, pretty: pretty, indent: 0)
        return output.string
    }

    /// Every digit, in a form both parsers read back to the same decimal: an integer beyond 64 bits
    /// gets ".0" (the parsers refuse such integers but take reals, whose digits `NumberLiterals`
    /// recovers), and one beyond a double's range is written as a string (a number would overflow;
    /// a decimal attribute reads the string back).
    static func writeDecimal(_ number: ExactDecimal, into output: inout ByteOutput) {
        if !number.doubleValue.isFinite {
            writeString(number.description, into: &output)
        } else if number.isIntegral && number.int64Value == nil {
            output.append(number.description + ".0")
        } else {
            output.append(number.description)
        }
    }

    static func write(_ value: JSONValue, into output: inout ByteOutput, pretty: Bool, indent: Int) {
        switch value {
        case .null: output.append("null")
        case .bool(let flag): output.append(flag ? "true" : "false")
        case .integer(let number): writeInteger(number, into: &output)
        case .real(let number): writeReal(number, into: &output)
        case .decimal(let number): writeDecimal(number, into: &output)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(&output, pretty: pretty, indent: indent + 1)
                write(element, into: &output, pretty: pretty, indent: indent + 1)
            }
            if !elements.isEmpty { newline(&output, pretty: pretty, indent: indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(&output, pretty: pretty, indent: indent + 1)
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                write(member.value, into: &output, pretty: pretty, indent: indent + 1)
            }
            if !members.isEmpty { newline(&output, pretty: pretty, indent: indent) }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeReal(_ number: Double, into output: inout ByteOutput) {
        if number.isFinite { output.append(number.description) } else { output.append("null") }
    }

    private static func newline(_ output: inout ByteOutput, pretty: Bool, indent: Int) {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        for _ in 0..<max(0, indent) { output.append("  ") }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The index of the first byte at or after `start` that a JSON string escapes (a control
    /// character, `"` or `\\`), or `bytes.count`. Eight bytes at a time: a byte below 0x20, or
    /// equal to one of the two, sets the high bit of its lane in `hits` (the classic zero-byte test).
    static func firstEscaped(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var index = start
        if let base = bytes.baseAddress {
            while bytes.count - index >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                let hits = ((word &- ones &* 0x20) | (quote &- ones) | (backslash &- ones)) & ~word & highs
                if hits != 0 { return index + hits.trailingZeroBitCount / 8 }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return index
    }

    /// An integer's digits, written in place (`String(number)` makes a string for each).
    package static func writeInteger(_ number: Int64, into output: inout ByteOutput) {
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 20 digits at most, filled from the end
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                count += 1
                buffer[24 - count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
        }
        if number < 0 { output.append(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &digits) { buffer in
            output.append(UnsafeBufferPointer(rebasing: buffer.bindMemory(to: UInt8.self)[(24 - count)...]))
        }
    }

    /// One stored value in a column (`ColumnWriter`): null for a missing value, dates as seconds
    /// written exactly (a JSON number with every microsecond, not a double's nearest).
    static func writeColumnValue(_ value: AttributeValue?, into output: inout ByteOutput) {
        switch value {
        case nil: output.append("null")
        case .string(let text)?: writeString(text, into: &output)
        case .integer(let number)?: writeInteger(number, into: &output)
        case .date(let instant)?: output.append(instant.secondsText)
        case .json(let json)?: output.append(json.text)
        case let other?: write(other.jsonValue, into: &output, pretty: false, indent: 0)
        }
    }

    static func writeString(_ text: String, into output: inout ByteOutput) {
        // Through `withUTF8`'s contiguous buffer: walking the UTF-8 view byte by byte cost ~700
        // instructions per short string.
        var contiguous = text
        contiguous.withUTF8 { writeString(bytes: $0, into: &output) }
    }

    /// A string's UTF-8 bytes as a JSON string (the graph's own bytes, for a column of strings).
    package static func writeString(bytes: UnsafeBufferPointer<UInt8>, into output: inout ByteOutput) {
        output.append(UInt8(ascii: "\""))
        // The runs between escapes are copied whole (most strings are one run); an escape is
        // appended byte by byte, never as an array of its own.
        var start = 0
        var index = 0
        while index < bytes.count {
            index = firstEscaped(in: bytes, from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            output.append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            index += 1
            start = index
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\n"): output.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): output.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): output.append(UInt8(ascii: "t"))
            case 0..<0x20:
                output.append("u00")
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default:
                output.append(byte)  // \" or \\
            }
        }
        // (`start` is where the bytes not yet copied begin.)
        output.append(UnsafeBufferPointer(rebasing: bytes[start...]))
        output.append(UInt8(ascii: "\""))
    }
}

/// One attribute of many objects as a JSON array (`mapping_list_values`): null for a missing value,
/// dates as seconds since 1970 (exact to the microsecond, unlike ISO text).
struct ColumnWriter: ~Copyable {
    private var output: ByteOutput

    init(capacity: Int) {
        output = ByteOutput(capacity: capacity.multipliedReportingOverflow(by: 16).overflow ? 256 : capacity * 16 + 2)
        output.append(UInt8(ascii: "["))
    }

    mutating func append(_ value: AttributeValue?) {
        if output.written > 1 { output.append(UInt8(ascii: ",")) }
        JSONWriter.writeColumnValue(value, into: &output)
    }

    /// A string read in place from the graph's arena (no `String` made for it).
    mutating func appendString(_ ref: StringArena.Ref, from arena: StringArena) {
        if output.written > 1 { output.append(UInt8(ascii: ",")) }
        // Typed as bytes so that appending them is one copy, not a generic element loop.
        arena.withBytes(ref) { JSONWriter.writeString(bytes: $0.bindMemory(to: UInt8.self), into: &output) }
    }

    mutating func finish() -> [UInt8] {
        output.append(UInt8(ascii: "]"))
        return output.array
    }
}

extension JSONValue {
    /// This value as JSON text (see `JSONWriter` for how numbers are written).
    public func text(pretty: Bool = false) -> String { JSONWriter.text(self, pretty: pretty) }
}
