import MappingCore

/// A value as an SQL database stores it.
package enum StoredValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Text that is not valid UTF-8 (read from a file changed outside libmapping; never written).
    case invalidText
}

extension StoredValue {
    /// Text a database hands back: `.text`, or `.invalidText` for bytes that are not UTF-8
    /// (validated, not repaired: two identities differing only in invalid bytes would otherwise
    /// both read back as U+FFFD, one identity). ASCII, most text, is told eight bytes at a time
    /// and needs no validation; the standard library's validation is generic code that looked up
    /// type metadata on every call (about 2,000 instructions a value).
    package static func text(validating bytes: UnsafeRawBufferPointer) -> StoredValue {
        if isASCII(bytes) { return .text(String(decoding: bytes, as: UTF8.self)) }
        return String(validating: bytes, as: UTF8.self).map(StoredValue.text) ?? .invalidText
    }

    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset + 8 <= bytes.count {
            guard bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else { return false }
            offset += 8
        }
        while offset < bytes.count {
            guard bytes[offset] < 0x80 else { return false }
            offset += 1
        }
        return true
    }
}

/// Attribute values to and from SQL, losing nothing: dates as INTEGER microseconds, decimals as
/// their exact digits, JSON as its text, booleans as 0/1.
extension StoredValue {
    package init(_ value: AttributeValue?) {
        switch value {
        case nil: self = .null
        case .string(let text)?: self = .text(text)
        case .integer(let number)?: self = .integer(number)
        case .double(let number)?: self = .real(number)
        case .decimal(let number)?: self = .text(number.description)
        case .boolean(let flag)?: self = .integer(flag ? 1 : 0)
        case .date(let instant)?: self = .integer(instant.microseconds)
        case .json(let json)?: self = .text(json.text)
        }
    }

    /// The stored value as an attribute of `type`; an error names the column when the file holds
    /// something the type cannot (a file edited by hand, or corrupt).
    package func attribute(_ type: AttributeType, column: @autoclosure () -> String, json: JSONTextReader) throws(MappingError) -> AttributeValue? {
        switch (type, self) {
        case (_, .null): return nil
        case (.string, .text(let text)): return .string(text)
        case (.integer, .integer(let number)): return .integer(number)
        case (.double, .real(let number)): return .double(number)
        case (.double, .integer(let number)): return .double(Double(number))
        case (.decimal, .text(let text)):
            if let number = ExactDecimal(parsing: text) { return .decimal(number) }
        case (.boolean, .integer(let number)): return .boolean(number != 0)
        case (.date, .integer(let number)): return .date(Timestamp(microseconds: number))
        case (.json, .text(let text)):
            do {
                return .json(try json(text))
            } catch {
                throw MappingError(.store, "column \"\(column())\" holds JSON that does not parse (\(error.message))")
            }
        case (_, .invalidText): throw MappingError(.store, "column \"\(column())\" holds text that is not valid UTF-8")
        default: break
        }
        throw MappingError(.store, "column \"\(column())\" holds a value a \(type.rawValue) attribute cannot")
    }
}
