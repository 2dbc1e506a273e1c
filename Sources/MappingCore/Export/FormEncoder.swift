/// Writes a JSON object as `application/x-www-form-urlencoded` text with RestKit's rules:
/// keys sorted, nested objects as `parent[child]=v`, arrays as `key[]=v` per
/// element (recursively), null as a bare key; UTF-8 percent-escaping that keeps only letters, digits
/// and `-_.~` (and, in keys, the brackets of the nesting syntax).
package enum FormEncoder {
    /// `nil` when `value` is not an object: form fields need names.
    package static func encode(_ value: JSONValue) -> String? {
        guard case .object = value else { return nil }
        var fields: [String] = []
        append(value, prefix: "", into: &fields)
        return fields.joined(separator: "&")
    }

    private static func append(_ value: JSONValue, prefix: String, into fields: inout [String]) {
        switch value {
        case .object(let members):
            for member in members.sorted(by: { $0.key < $1.key }) {
                let key = escape(member.key, keepBrackets: true)
                append(member.value, prefix: prefix.isEmpty ? key : prefix + "[" + key + "]", into: &fields)
            }
        case .array(let elements):
            for element in elements { append(element, prefix: prefix + "[]", into: &fields) }
        case .null:
            fields.append(prefix)
        case .string(let text):
            fields.append(prefix + "=" + escape(text, keepBrackets: false))
        default:
            fields.append(prefix + "=" + escape(value.text(), keepBrackets: false))
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    static func escape(_ text: String, keepBrackets: Bool) -> String {
        var output: [UInt8] = []
        for byte in text.utf8 {
            let safe = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
                || (keepBrackets && (byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")))
            if safe {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
