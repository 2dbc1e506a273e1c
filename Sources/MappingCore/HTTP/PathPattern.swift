/// A path pattern with RestKit's and SOCKit's rules:
/// `/users/:userID/articles/:article.slug\.json`. A parameter is `:` followed by the longest run of
/// letters, digits, `.`, `_` and `@` (so `:user.name` is a key path and `:@count` counts); a `:` not
/// followed by such a character is literal (`http://`). `\.`, `\:`, `\@` and `\\` are literal
/// characters. Two parameters need a literal between them.
public struct PathPattern: Sendable, Equatable {
    enum Token: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let tokens: [Token]
    public let text: String

    public init(_ text: String) throws(MappingError) {
        self.text = text
        var tokens: [Token] = []
        var literal = ""
        let characters = Array(text)
        var index = 0
        func isNameCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || character == "." || character == "_" || character == "@"
        }
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, "\\.:@".contains(characters[index + 1]) {
                literal.append(characters[index + 1])
                index += 2
            } else if character == ":", index + 1 < characters.count, isNameCharacter(characters[index + 1]) {
                var end = index + 1
                while end < characters.count, isNameCharacter(characters[end]) { end += 1 }
                if literal.isEmpty, case .parameter? = tokens.last {
                    throw MappingError(.misuse, "path pattern \"\(text)\": parameters must be separated by strings")
                }
                if !literal.isEmpty { tokens.append(.literal(literal)) }
                literal = ""
                tokens.append(.parameter(String(characters[(index + 1)..<end])))
                index = end
            } else {
                literal.append(character)
                index += 1
            }
        }
        if !literal.isEmpty { tokens.append(.literal(literal)) }
        self.tokens = tokens
    }

    /// The names of the parameters, in order.
    public var parameterNames: [String] {
        tokens.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    // MARK: Interpolation

    /// The pattern with each parameter replaced by `value(name)` (`(null)` when there is none, as
    /// RestKit writes), percent-escaped when `escaping` (everything but letters, digits and `-._~`).
    public func interpolate(escaping: Bool, _ value: (String) -> String?) -> String {
        var output = ""
        for token in tokens {
            switch token {
            case .literal(let text): output += text
            case .parameter(let name):
                let text = value(name) ?? "(null)"
                output += escaping ? PercentEncoding.escape(text) : text
            }
        }
        return output
    }

    // MARK: Matching

    /// The parameters when `path` matches, else `nil`. The query (after the first `?`) is set aside
    /// first and, when `queryParameters` is set, its pairs are added to the result; the path part must
    /// have as many `/` as the pattern; every parameter is non-empty and runs to the first occurrence
    /// of the next literal; values are percent-decoded.
    public func match(_ path: String, queryParameters: Bool) -> [String: JSONValue]? {
        let (pathPart, query) = PercentEncoding.splitQuery(path)
        guard pathPart.filter({ $0 == "/" }).count == text.filter({ $0 == "/" }).count,
              var arguments = matchTokens(Array(pathPart)) else { return nil }
        if queryParameters, let query {
            for (key, value) in QueryString.decode(query) where arguments[key] == nil { arguments[key] = value }
        }
        return arguments
    }

    private func matchTokens(_ characters: [Character]) -> [String: JSONValue]? {
        var arguments: [String: JSONValue] = [:]
        var position = 0
        for (index, token) in tokens.enumerated() {
            switch token {
            case .literal(let text):
                let expected = Array(text)
                guard position + expected.count <= characters.count,
                      Array(characters[position..<(position + expected.count)]) == expected else { return nil }
                position += expected.count
            case .parameter(let name):
                var end = characters.count
                if index + 1 < tokens.count, case .literal(let next) = tokens[index + 1] {
                    guard let found = Self.find(Array(next), in: characters, from: position) else { return nil }
                    end = found
                }
                guard end > position else { return nil }
                arguments[name] = .string(PercentEncoding.unescape(String(characters[position..<end])))
                position = end
            }
        }
        return position == characters.count ? arguments : nil
    }

    private static func find(_ needle: [Character], in haystack: [Character], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}

/// Percent-encoding as the HTTP side needs it.
public enum PercentEncoding {
    /// Everything but letters, digits and `-._~`, as UTF-8 `%XX`.
    public static func escape(_ text: String) -> String { FormEncoder.escape(text, keepBrackets: false) }

    /// `%XX` sequences decoded as UTF-8; malformed ones are kept as they are.
    public static func unescape(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The path and, if there is a `?`, the query after the first one.
    static func splitQuery(_ path: String) -> (String, String?) {
        guard let mark = path.firstIndex(of: "?") else { return (path, nil) }
        return (String(path[..<mark]), String(path[path.index(after: mark)...]))
    }
}

/// Query strings as RestKit decodes them: pairs split on `&` and `=`,
/// pairs without `=` ignored, keys and values percent-decoded, a repeated key gives an array, and a key
/// such as `organizations[]` stays as it is.
public enum QueryString {
    public static func decode(_ query: String) -> [(String, JSONValue)] {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let key = PercentEncoding.unescape(String(pair[..<equals]))
            let value = PercentEncoding.unescape(String(pair[pair.index(after: equals)...]))
            if values[key] == nil { order.append(key) }
            values[key, default: []].append(value)
        }
        return order.map { key in
            let list = values[key] ?? []
            return (key, list.count == 1 ? .string(list[0]) : .array(list.map(JSONValue.string)))
        }
    }

    public static func decodeObject(_ query: String) -> JSONValue {
        .object(decode(query).map { JSONMember($0.0, $0.1) })
    }
}
