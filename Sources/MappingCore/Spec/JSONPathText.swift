/// Builds the JSON paths error messages carry: `$.entities.Person.attributes[0]`, with keys that are
/// not plain identifiers bracketed and quoted (`$["first name"]`).
enum JSONPathText {
    static func appending(_ path: String, key: String) -> String {
        let plain = !key.isEmpty && key.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte >= 0x80
        }
        if plain { return path + "." + key }
        var escaped = ""
        for character in key {
            if character == "\"" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return path + "[\"" + escaped + "\"]"
    }

    static func appending(_ path: String, index: Int) -> String { path + "[" + String(index) + "]" }
}
