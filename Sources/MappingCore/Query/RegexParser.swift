/// The parsed pattern.
indirect enum RegexNode: Sendable {
    case empty
    case scalar(Unicode.Scalar)
    case any
    case set(Int)
    case start
    case end
    case sequence([RegexNode])
    case either([RegexNode])
    case repeated(RegexNode, min: Int, max: Int?)
}

/// A recursive-descent parser over the pattern's scalars; nesting is bounded, so is its recursion.
struct RegexParser {
    let scalars: [Unicode.Scalar]
    let caseInsensitive: Bool
    var position = 0
    var depth = 0
    var sets: [ScalarSet] = []

    init(scalars: [Unicode.Scalar], caseInsensitive: Bool) {
        self.scalars = scalars
        self.caseInsensitive = caseInsensitive
    }

    private var current: Unicode.Scalar? { scalars.indices.contains(position) ? scalars[position] : nil }

    mutating func parseAll() throws(RegexError) -> RegexNode {
        let node = try alternation()
        if let stray = current { throw RegexError("unbalanced \"\(stray)\" at character \(position + 1)") }
        return node
    }

    private mutating func alternation() throws(RegexError) -> RegexNode {
        var branches = [try sequence()]
        while current == "|" {
            position += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .either(branches)
    }

    private mutating func sequence() throws(RegexError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = current, scalar != "|", scalar != ")" {
            items.append(try quantified(try atom()))
        }
        return items.isEmpty ? .empty : (items.count == 1 ? items[0] : .sequence(items))
    }

    private mutating func atom() throws(RegexError) -> RegexNode {
        guard let scalar = current else { throw RegexError("the pattern ends too early") }
        let at = position + 1
        position += 1
        switch scalar {
        case ".": return .any
        case "^": return .start
        case "$": return .end
        case "(":
            if current == "?" {
                guard position + 1 < scalars.count, scalars[position + 1] == ":" else {
                    throw RegexError("\"(?\" at character \(at): only non-capturing groups \"(?:\" are supported (no lookaround or flags)")
                }
                position += 2
            }
            depth += 1
            guard depth <= LinearRegex.maxNesting else { throw RegexError("groups nest more than \(LinearRegex.maxNesting) deep") }
            let inner = try alternation()
            depth -= 1
            guard current == ")" else { throw RegexError("the group opened at character \(at) is not closed") }
            position += 1
            return inner
        case "[": return .set(try bracket(openedAt: at))
        case "\\": return try escape(at: at)
        case "*", "+", "?", "{":
            throw RegexError("\"\(scalar)\" at character \(at) has nothing to repeat")
        case ")", "]", "}":
            throw RegexError("unbalanced \"\(scalar)\" at character \(at)")
        default: return .scalar(fold(scalar))
        }
    }

    private func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar { caseInsensitive ? LinearRegex.fold(scalar) : scalar }

    private mutating func quantified(_ node: RegexNode) throws(RegexError) -> RegexNode {
        var node = node
        while let scalar = current, "*+?{".unicodeScalars.contains(scalar) {
            let at = position + 1
            position += 1
            var bounds: (Int, Int?)
            switch scalar {
            case "*": bounds = (0, nil)
            case "+": bounds = (1, nil)
            case "?": bounds = (0, 1)
            default: bounds = try interval(at: at)
            }
            if current == "?" {
                position += 1  // lazy: the same strings match as a whole
            } else if current == "+" {
                throw RegexError("possessive quantifier at character \(position + 1) is not supported")
            }
            node = .repeated(node, min: bounds.0, max: bounds.1)
        }
        return node
    }

    private mutating func interval(at: Int) throws(RegexError) -> (Int, Int?) {
        guard let low = try number() else { throw RegexError("\"{\" at character \(at) is not a repetition {n,m}") }
        var high: Int? = low
        if current == "," {
            position += 1
            high = try number()
        }
        guard current == "}" else { throw RegexError("the repetition at character \(at) is not closed with \"}\"") }
        position += 1
        if let high, high < low { throw RegexError("the repetition at character \(at) has its bounds reversed") }
        guard low <= LinearRegex.maxRepeat, (high ?? 0) <= LinearRegex.maxRepeat else {
            throw RegexError("the repetition at character \(at) counts past \(LinearRegex.maxRepeat)")
        }
        return (low, high)
    }

    private mutating func number() throws(RegexError) -> Int? {
        var value: Int?
        while let scalar = current, let digit = scalar.properties.numericType == .decimal ? Int(String(scalar)) : nil, scalar.isASCII {
            value = min((value ?? 0) * 10 + digit, LinearRegex.maxRepeat + 1)
            position += 1
        }
        return value
    }

    private mutating func escape(at: Int) throws(RegexError) -> RegexNode {
        guard let scalar = current else { throw RegexError("the pattern ends with a lone \"\\\"") }
        position += 1
        if let named = Self.named(scalar) {
            var set = ScalarSet()
            set.named = [(named.0, false)]
            set.negated = named.1
            sets.append(set)
            return .set(sets.count - 1)
        }
        return .scalar(fold(try escapedScalar(scalar, at: at)))
    }

    private static func named(_ scalar: Unicode.Scalar) -> (ScalarSet.Named, Bool)? {
        switch scalar {
        case "d": (.digit, false)
        case "D": (.digit, true)
        case "w": (.word, false)
        case "W": (.word, true)
        case "s": (.space, false)
        case "S": (.space, true)
        default: nil
        }
    }

    /// The scalar an escape other than a named class stands for.
    private mutating func escapedScalar(_ scalar: Unicode.Scalar, at: Int) throws(RegexError) -> Unicode.Scalar {
        switch scalar {
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "u":
            return try hexScalar(digits: 4, at: at)
        case "x":
            guard current == "{" else { return try hexScalar(digits: 2, at: at) }
            position += 1
            var value: UInt32 = 0
            var count = 0
            while let digit = current, let nibble = Self.hex(digit) {
                value = value &* 16 &+ nibble
                count += 1
                position += 1
                guard count <= 6 else { throw RegexError("\"\\x{\" at character \(at) is too long") }
            }
            guard count > 0, current == "}", let result = Unicode.Scalar(value) else {
                throw RegexError("\"\\x{…}\" at character \(at) is not a code point")
            }
            position += 1
            return result
        default:
            guard scalar.isASCII, !scalar.properties.isAlphabetic, scalar.properties.numericType == nil else {
                throw RegexError("\"\\\(scalar)\" at character \(at) is not supported (no backreferences, word boundaries or other escapes)")
            }
            return scalar
        }
    }

    private mutating func hexScalar(digits: Int, at: Int) throws(RegexError) -> Unicode.Scalar {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let digit = current, let nibble = Self.hex(digit) else {
                throw RegexError("the escape at character \(at) needs \(digits) hexadecimal digits")
            }
            value = value * 16 + nibble
            position += 1
        }
        guard let result = Unicode.Scalar(value) else { throw RegexError("the escape at character \(at) is not a code point") }
        return result
    }

    private static func hex(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: scalar.value - 0x30
        case 0x41...0x46: scalar.value - 0x41 + 10
        case 0x61...0x66: scalar.value - 0x61 + 10
        default: nil
        }
    }

    /// A bracket expression, after its `[`.
    private mutating func bracket(openedAt at: Int) throws(RegexError) -> Int {
        var set = ScalarSet()
        if current == "^" {
            set.negated = true
            position += 1
        }
        var first = true
        while true {
            guard let scalar = current else { throw RegexError("the class opened at character \(at) is not closed") }
            if scalar == "]" && !first { break }
            first = false
            position += 1
            var low: Unicode.Scalar
            if scalar == "\\" {
                guard let escaped = current else { throw RegexError("the class opened at character \(at) is not closed") }
                position += 1
                if let named = Self.named(escaped) {
                    set.named.append(named)
                    continue
                }
                low = try escapedScalar(escaped, at: position)
            } else if scalar == "[" {
                throw RegexError("nested classes at character \(position) are not supported")
            } else {
                low = scalar
            }
            if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                position += 1
                guard var high = current else { throw RegexError("the class opened at character \(at) is not closed") }
                position += 1
                if high == "\\" {
                    guard let escaped = current else { throw RegexError("the class opened at character \(at) is not closed") }
                    position += 1
                    high = try escapedScalar(escaped, at: position)
                }
                guard low.value <= high.value else { throw RegexError("the range \(low)-\(high) in the class at character \(at) is reversed") }
                set.ranges.append(low.value...high.value)
            } else {
                set.ranges.append(low.value...low.value)
            }
        }
        position += 1  // the closing ]
        sets.append(set)
        return sets.count - 1
    }
}
