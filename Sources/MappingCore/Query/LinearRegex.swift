/// The regular expressions of `MATCHES`, matched in time linear in the subject: the pattern is
/// compiled to a small program that a Pike VM (Thompson's construction, all alternatives advanced
/// in step) runs over the subject's Unicode scalars, so no pattern can make a match backtrack
/// exponentially — `(a+)+b` against 10,000 `a`s takes 10,000 steps of a few threads each. Matching is
/// by code point, as ICU (which NSPredicate uses) matches, and always of the whole string.
///
/// Syntax: literals; `.` (any scalar but a line terminator); escapes `\. \* \\ \( \)` and of any other
/// ASCII punctuation, `\t \n \r \f`, `\uhhhh`, `\x{h…}`, `\d \D \w \W \s \S`; classes `[abc] [a-z]
/// [^…]` with escapes and `\d \w \s` inside; `^ $`; groups `( )` and `(?: )`; alternation `|`;
/// quantifiers `* + ? {n} {n,} {n,m}` and their lazy forms (laziness cannot change whether the whole
/// string matches). Backreferences, lookaround, possessive quantifiers, named groups and other escapes
/// are refused with a message, as are patterns past the size limits below.
struct LinearRegex: Sendable {
    enum Instruction: Sendable, Equatable {
        case scalar(UInt32)
        case any
        case set(Int)
        case split(Int, Int)
        case jump(Int)
        case assertStart
        case assertEnd
        case match
    }

    let program: [Instruction]
    let sets: [ScalarSet]
    let caseInsensitive: Bool

    static let maxPatternScalars = 10_000
    static let maxNesting = 256
    static let maxRepeat = 1_000
    static let maxProgram = 100_000

    /// Compiles `pattern`; the error's message says what is wrong with it.
    init(_ pattern: String, caseInsensitive: Bool) throws(RegexError) {
        let scalars = Array(pattern.unicodeScalars)
        guard scalars.count <= Self.maxPatternScalars else {
            throw RegexError("the pattern is longer than \(Self.maxPatternScalars) characters")
        }
        var parser = RegexParser(scalars: scalars, caseInsensitive: caseInsensitive)
        let tree = try parser.parseAll()
        var compiler = RegexCompiler(caseInsensitive: caseInsensitive)
        try compiler.emit(tree)
        try compiler.append(.match)
        program = compiler.program
        sets = parser.sets
        self.caseInsensitive = caseInsensitive
    }

    /// Whether the whole of `text` matches; `steps` counts the threads advanced (for tests: at most
    /// the program's size per scalar, plus one round).
    func wholeMatch(_ text: String, steps: inout Int) -> Bool {
        var current = ThreadList(capacity: program.count)
        var next = ThreadList(capacity: program.count)
        let subject = Array(text.unicodeScalars)
        addThread(0, at: 0, count: subject.count, to: &current, steps: &steps)
        for (position, scalar) in subject.enumerated() {
            let folded = caseInsensitive ? Self.fold(scalar) : scalar
            next.clear()
            for index in 0..<current.count {
                let pc = current.pcs[index]
                steps += 1
                guard program.indices.contains(pc) else { continue }
                let advances: Bool
                switch program[pc] {
                case .scalar(let wanted): advances = folded.value == wanted
                case .any: advances = !Self.isLineTerminator(scalar)
                case .set(let set): advances = sets.indices.contains(set) && sets[set].contains(scalar, caseInsensitive: caseInsensitive)
                default: advances = false
                }
                if advances { addThread(pc + 1, at: position + 1, count: subject.count, to: &next, steps: &steps) }
            }
            swap(&current, &next)
            if current.count == 0 { return false }
        }
        for index in 0..<current.count where program.indices.contains(current.pcs[index]) {
            if program[current.pcs[index]] == .match { return true }
        }
        return false
    }

    func wholeMatch(_ text: String) -> Bool {
        var steps = 0
        return wholeMatch(text, steps: &steps)
    }

    /// Adds the thread at `start` and every thread its jumps, splits and assertions lead to, each
    /// program counter once per position (an explicit stack: no recursion on the program's size).
    private func addThread(_ start: Int, at position: Int, count: Int, to list: inout ThreadList, steps: inout Int) {
        var stack = [start]
        while let pc = stack.popLast() {
            guard program.indices.contains(pc), !list.contains(pc) else { continue }
            list.insert(pc)
            steps += 1
            switch program[pc] {
            case .jump(let target): stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assertStart: if position == 0 { stack.append(pc + 1) }
            case .assertEnd: if position == count { stack.append(pc + 1) }
            default: break
            }
        }
    }

    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        guard lower.count == 1, let only = lower.first else { return scalar }
        return only
    }

    static func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
        [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029].contains(scalar.value)
    }
}

/// Why a pattern does not compile.
struct RegexError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A sparse set of program counters: constant-time insert, membership and clear.
private struct ThreadList {
    var pcs: [Int] = []
    private var slot: [Int]
    private(set) var count = 0

    init(capacity: Int) {
        slot = Array(repeating: 0, count: capacity)
        pcs.reserveCapacity(capacity)
    }

    func contains(_ pc: Int) -> Bool {
        guard slot.indices.contains(pc) else { return true }
        let at = slot[pc]
        return at < count && pcs.indices.contains(at) && pcs[at] == pc
    }

    mutating func insert(_ pc: Int) {
        guard slot.indices.contains(pc) else { return }
        slot[pc] = count
        if count < pcs.count { pcs[count] = pc } else { pcs.append(pc) }
        count += 1
    }

    mutating func clear() { count = 0 }
}

/// A character class: ranges and named classes, possibly negated.
struct ScalarSet: Sendable {
    enum Named: Sendable { case digit, word, space }

    var ranges: [ClosedRange<UInt32>] = []
    var named: [(Named, negated: Bool)] = []
    var negated = false

    func contains(_ scalar: Unicode.Scalar, caseInsensitive: Bool) -> Bool {
        var found = containsExactly(scalar)
        if !found && caseInsensitive {
            let lower = LinearRegex.fold(scalar)
            let upper = scalar.properties.uppercaseMapping.unicodeScalars
            found = containsExactly(lower) || (upper.count == 1 && upper.first.map(containsExactly) == true)
        }
        return found != negated
    }

    private func containsExactly(_ scalar: Unicode.Scalar) -> Bool {
        if ranges.contains(where: { $0.contains(scalar.value) }) { return true }
        return named.contains { named, negated in ScalarSet.matches(named, scalar) != negated }
    }

    static func matches(_ named: Named, _ scalar: Unicode.Scalar) -> Bool {
        switch named {
        case .digit: return scalar.properties.numericType == .decimal
        case .space: return scalar.properties.isWhitespace
        case .word:
            return scalar.value == 0x5F || scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
                || scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .spacingMark
        }
    }
}

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
private struct RegexParser {
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

/// Turns the tree into a program, within the program size limit.
private struct RegexCompiler {
    let caseInsensitive: Bool
    var program: [LinearRegex.Instruction] = []

    mutating func append(_ instruction: LinearRegex.Instruction) throws(RegexError) {
        guard program.count < LinearRegex.maxProgram else {
            throw RegexError("the pattern compiles to more than \(LinearRegex.maxProgram) steps; use fewer or smaller repetitions")
        }
        program.append(instruction)
    }

    mutating func emit(_ node: RegexNode) throws(RegexError) {
        switch node {
        case .empty: break
        case .scalar(let scalar): try append(.scalar(scalar.value))
        case .any: try append(.any)
        case .set(let index): try append(.set(index))
        case .start: try append(.assertStart)
        case .end: try append(.assertEnd)
        case .sequence(let items): for item in items { try emit(item) }
        case .either(let branches):
            // split L1, next; L1: branch; jump end; next: split … ; the last branch falls through.
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = program.count
                    try append(.split(split + 1, 0))
                    try emit(branch)
                    jumps.append(program.count)
                    try append(.jump(0))
                    program[split] = .split(split + 1, program.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repeated(let inner, let min, let max):
            for _ in 0..<min { try emit(inner) }
            if let max {
                // Each further copy is optional: split into it or past all that follow.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    try append(.split(program.count + 1, 0))
                    try emit(inner)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                let loop = program.count
                try append(.split(loop + 1, 0))
                try emit(inner)
                try append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
            }
        }
    }
}
