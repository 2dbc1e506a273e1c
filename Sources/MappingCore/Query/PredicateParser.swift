/// Parses predicate text. Keywords are case-insensitive; strings take single or double quotes with
/// backslash escapes; `%@` is a positional argument; errors name the column.
struct PredicateParser {
    private enum Token: Equatable {
        case word(String)          // identifiers and keywords
        case string(String)
        case number(String)
        case symbol(String)        // operators and punctuation
        case count                 // @count
        case argument              // %@
        case end
    }

    private var tokens: [(token: Token, column: Int)] = []
    private var position = 0
    private var argumentCount = 0
    /// Nesting of parentheses, NOTs and lists, bounded so hostile text gets an error, not a stack overflow.
    private var depth = 0
    private static let maxDepth = 128

    static func parse(_ text: String) throws(MappingError) -> (Predicate, arguments: Int) {
        var parser = PredicateParser()
        parser.tokens = try tokenize(text)
        let predicate = try parser.orExpression()
        guard case .end = parser.current.token else {
            throw parser.error("unexpected \(parser.describe(parser.current.token))")
        }
        return (predicate, parser.argumentCount)
    }

    // MARK: Grammar

    private var current: (token: Token, column: Int) { tokens.indices.contains(position) ? tokens[position] : (.end, 0) }

    private mutating func advance() { position += 1 }

    private func error(_ message: String, column: Int? = nil) -> MappingError {
        let where_ = column ?? current.column
        return MappingError(.predicate, "\(message) at column \(where_)", column: where_)
    }

    private func isKeyword(_ word: String) -> Bool {
        if case .word(let text) = current.token { return text.uppercased() == word }
        return false
    }

    private func isSymbol(_ symbol: String) -> Bool { current.token == .symbol(symbol) }

    private mutating func orExpression() throws(MappingError) -> Predicate {
        var parts = [try andExpression()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            parts.append(try andExpression())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func andExpression() throws(MappingError) -> Predicate {
        var parts = [try notExpression()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            parts.append(try notExpression())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func notExpression() throws(MappingError) -> Predicate {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw error("the predicate nests more than \(Self.maxDepth) levels") }
        if isKeyword("NOT") || isSymbol("!") {
            advance()
            return .not(try notExpression())
        }
        return try primary()
    }

    private mutating func primary() throws(MappingError) -> Predicate {
        if isSymbol("(") {
            advance()
            let inner = try orExpression()
            guard isSymbol(")") else { throw error("expected \")\"") }
            advance()
            return inner
        }
        if isKeyword("TRUEPREDICATE") { advance(); return .constant(true) }
        if isKeyword("FALSEPREDICATE") { advance(); return .constant(false) }
        return .comparison(try comparison())
    }

    private mutating func comparison() throws(MappingError) -> Comparison {
        let column = current.column
        var aggregate: Comparison.Aggregate?
        if isKeyword("ANY") || isKeyword("SOME") { aggregate = .any; advance() }
        else if isKeyword("ALL") { aggregate = .all; advance() }
        else if isKeyword("NONE") { aggregate = .noneOf; advance() }
        let left = try expression()
        let operatorColumn = current.column
        guard let op = comparisonOperator() else {
            throw error(current.token == .end ? "expected a comparison operator, found the end" : "expected a comparison operator, found \(describe(current.token))")
        }
        advance()
        var caseInsensitive = false
        var diacriticInsensitive = false
        if isSymbol("[") {
            advance()
            guard case .word(let flags) = current.token, !flags.isEmpty,
                  flags.lowercased().allSatisfy({ $0 == "c" || $0 == "d" }) else {
                throw error("expected modifiers c, d or cd")
            }
            caseInsensitive = flags.lowercased().contains("c")
            diacriticInsensitive = flags.lowercased().contains("d")
            advance()
            guard isSymbol("]") else { throw error("expected \"]\"") }
            advance()
        }
        let right = try expression()
        if op == .between {
            switch right {
            case .list(let bounds) where bounds.count == 2: break
            case .argument: break
            default: throw error("BETWEEN needs {lower, upper}", column: operatorColumn)
            }
        }
        if case .keyPath = right, case .keyPath = left, op == .like || op == .matches {
            throw error("\(op.rawValue) needs a pattern, not a key path", column: operatorColumn)
        }
        return Comparison(aggregate: aggregate, left: left, op: op, right: right, caseInsensitive: caseInsensitive,
                          diacriticInsensitive: diacriticInsensitive, column: column)
    }

    private func comparisonOperator() -> Comparison.Operator? {
        switch current.token {
        case .symbol(let symbol):
            switch symbol {
            case "==", "=": return .equal
            case "!=", "<>": return .notEqual
            case "<": return .less
            case "<=", "=<": return .lessOrEqual
            case ">": return .greater
            case ">=", "=>": return .greaterOrEqual
            default: return nil
            }
        case .word(let word):
            switch word.uppercased() {
            case "IN": return .in
            case "CONTAINS": return .contains
            case "BEGINSWITH": return .beginsWith
            case "ENDSWITH": return .endsWith
            case "LIKE": return .like
            case "MATCHES": return .matches
            case "BETWEEN": return .between
            default: return nil
            }
        default:
            return nil
        }
    }

    private static let reserved: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
        "ANY", "ALL", "NONE", "SOME", "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    private mutating func expression() throws(MappingError) -> Expression {
        let column = current.column
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw error("the predicate nests more than \(Self.maxDepth) levels") }
        switch current.token {
        case .string(let text):
            advance()
            return .literal(.string(text))
        case .number(let text):
            advance()
            if let integer = Int64(text) { return .literal(.integer(integer)) }
            guard let decimal = ExactDecimal(parsing: text) else { throw error("\"\(text)\" is not a number", column: column) }
            return .literal(.decimal(decimal))
        case .argument:
            advance()
            argumentCount += 1
            return .argument(argumentCount - 1, column: column)
        case .symbol("{"):
            advance()
            var elements: [Expression] = []
            if !isSymbol("}") {
                elements.append(try expression())
                while isSymbol(",") {
                    advance()
                    elements.append(try expression())
                }
            }
            guard isSymbol("}") else { throw error("expected \"}\"") }
            advance()
            return .list(elements)
        case .word(let word):
            switch word.uppercased() {
            case "TRUE", "YES": advance(); return .literal(.bool(true))
            case "FALSE", "NO": advance(); return .literal(.bool(false))
            case "NIL", "NULL": advance(); return .literal(.null)
            case "SELF": advance(); return .this
            case let keyword where Self.reserved.contains(keyword):
                throw error("expected a key path or a value, found \(keyword)", column: column)
            default: break
            }
            var names = [word]
            advance()
            var count = false
            while isSymbol(".") {
                advance()
                if case .count = current.token {
                    advance()
                    count = true
                    break
                }
                guard case .word(let next) = current.token else { throw error("expected a name after \".\"") }
                names.append(next)
                advance()
            }
            if case .count = current.token {
                advance()
                count = true
            }
            return .keyPath(names, count: count, column: column)
        case .end:
            throw error("expected a key path or a value, found the end", column: column)
        default:
            throw error("expected a key path or a value, found \(describe(current.token))", column: column)
        }
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .word(let text): "\"\(text)\""
        case .string(let text): "the string \"\(text)\""
        case .number(let text): text
        case .symbol(let text): "\"\(text)\""
        case .count: "@count"
        case .argument: "%@"
        case .end: "the end"
        }
    }

    // MARK: Tokens

    private static func tokenize(_ text: String) throws(MappingError) -> [(token: Token, column: Int)] {
        let characters = Array(text)
        var tokens: [(token: Token, column: Int)] = []
        var index = 0
        func fail(_ message: String, _ at: Int) -> MappingError {
            MappingError(.predicate, "\(message) at column \(at + 1)", column: at + 1)
        }
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            if character == " " || character == "\t" || character == "\n" || character == "\r" {
                index += 1
            } else if character.isLetter || character == "_" {
                var end = index
                while end < characters.count, characters[end].isLetter || characters[end].isNumber || characters[end] == "_" {
                    end += 1
                }
                tokens.append((.word(String(characters[index..<end])), column))
                index = end
            } else if character.isNumber || (character == "-" && index + 1 < characters.count && characters[index + 1].isNumber
                                             && Self.expectsValue(after: tokens.last?.token)) {
                var end = index + 1
                while end < characters.count, characters[end].isNumber || characters[end] == "." || characters[end] == "e"
                        || characters[end] == "E" || ((characters[end] == "-" || characters[end] == "+")
                                                      && (characters[end - 1] == "e" || characters[end - 1] == "E")) {
                    end += 1
                }
                tokens.append((.number(String(characters[index..<end])), column))
                index = end
            } else if character == "'" || character == "\"" {
                var value = ""
                var end = index + 1
                var closed = false
                while end < characters.count {
                    let next = characters[end]
                    if next == character { closed = true; break }
                    if next == "\\", end + 1 < characters.count {
                        end += 1
                        switch characters[end] {
                        case "n": value.append("\n")
                        case "t": value.append("\t")
                        case "r": value.append("\r")
                        default: value.append(characters[end])
                        }
                    } else {
                        value.append(next)
                    }
                    end += 1
                }
                guard closed else { throw fail("unterminated string", index) }
                tokens.append((.string(value), column))
                index = end + 1
            } else if character == "@" {
                let word = String(characters[index..<min(characters.count, index + 6)])
                guard word == "@count" else { throw fail("unknown \"@\" operator (only @count is supported)", index) }
                tokens.append((.count, column))
                index += 6
            } else if character == "%" {
                guard index + 1 < characters.count, characters[index + 1] == "@" else {
                    throw fail("expected %@ for an argument", index)
                }
                tokens.append((.argument, column))
                index += 2
            } else {
                let two = index + 1 < characters.count ? String(characters[index...index + 1]) : ""
                if ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"].contains(two) {
                    tokens.append((.symbol(two), column))
                    index += 2
                } else if "=<>!(){}[],.".contains(character) {
                    tokens.append((.symbol(String(character)), column))
                    index += 1
                } else {
                    throw fail("unexpected character \"\(character)\"", index)
                }
            }
        }
        tokens.append((.end, characters.count + 1))
        return tokens
    }

    /// A `-` starts a negative number where a value is expected (after an operator or at the start).
    private static func expectsValue(after token: Token?) -> Bool {
        switch token {
        case nil, .symbol, .word: return true
        default: return false
        }
    }
}
