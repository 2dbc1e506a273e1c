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
    /// Per program counter, where its threads go without reading a scalar (its jumps and splits
    /// followed, in order): the instructions that read one or end the match, as ranges of
    /// `closureMembers` (`closureStarts[pc]..<closureStarts[pc + 1]`). Made once per pattern, for
    /// programs without `^` or `$` (whose threads depend on the position) and up to
    /// `maxClosureProgram` instructions; following the jumps and splits on every step of every
    /// match was most of a short match. Empty: threads are followed as they come (`addThread`).
    private let closureStarts: [Int]
    private let closureMembers: [Int]

    static let maxPatternScalars = 10_000
    static let maxNesting = 256
    static let maxRepeat = 1_000
    static let maxProgram = 100_000
    /// Closures are made for programs up to this size (making them is quadratic in it at worst).
    static let maxClosureProgram = 2_000

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
        (closureStarts, closureMembers) = Self.closures(of: compiler.program)
    }

    /// Each instruction's closure (see `closureStarts`), or none for a program with assertions or
    /// past `maxClosureProgram` instructions.
    private static func closures(of program: [Instruction]) -> (starts: [Int], members: [Int]) {
        guard program.count <= maxClosureProgram, !program.contains(.assertStart), !program.contains(.assertEnd) else { return ([], []) }
        var starts: [Int] = [0]
        var members: [Int] = []
        var seen = ThreadList(capacity: program.count)
        var stack: [Int] = []
        for pc in program.indices {
            seen.clear()
            // No assertion is met (the guard above), so the position never matters.
            follow(pc, in: program, at: 1, count: 0, seen: &seen, stack: &stack) { at in
                switch program[at] {
                case .jump, .split: break
                default: members.append(at)
                }
            }
            starts.append(members.count)
        }
        return (starts, members)
    }

    /// Whether the whole of `text` matches; `steps` counts the threads advanced (for tests: at most
    /// the program's size per scalar, plus one round).
    func wholeMatch(_ text: String, steps: inout Int) -> Bool {
        // ASCII (most text) is read byte by byte, each byte its scalar: no UTF-8 decoding, and
        // its count known without a pass.
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return wholeMatch(bytes.lazy.map { Unicode.Scalar($0) }, count: bytes.count, steps: &steps)
        }
        if let ascii, let matched = ascii { return matched }
        // The scalars are walked where the string keeps them (copying them out was an allocation
        // per match); their count tells `$` where the end is.
        let subject = text.unicodeScalars
        return wholeMatch(subject, count: subject.count, steps: &steps)
    }

    private func wholeMatch<Scalars: Sequence<Unicode.Scalar>>(_ subject: Scalars, count: Int, steps: inout Int) -> Bool {
        var current = ThreadList(capacity: program.count)
        var next = ThreadList(capacity: program.count)
        // `addThread`'s stack, made once per match: made per call, it was an allocation per thread
        // advanced (most of a short string's match).
        var stack: [Int] = []
        if closureStarts.isEmpty { stack.reserveCapacity(program.count) }
        addThread(0, at: 0, count: count, to: &current, stack: &stack, steps: &steps)
        for (position, scalar) in subject.enumerated() {
            let folded = caseInsensitive ? Self.fold(scalar) : scalar
            next.clear()
            for index in 0..<current.count {
                let pc = current.pc(at: index)
                steps += 1
                guard program.indices.contains(pc) else { continue }
                let advances: Bool
                switch program[pc] {
                case .scalar(let wanted): advances = folded.value == wanted
                case .any: advances = !Self.isLineTerminator(scalar)
                case .set(let set): advances = sets.indices.contains(set) && sets[set].contains(scalar, caseInsensitive: caseInsensitive)
                default: advances = false
                }
                if advances { addThread(pc + 1, at: position + 1, count: count, to: &next, stack: &stack, steps: &steps) }
            }
            swap(&current, &next)
            if current.count == 0 { return false }
        }
        for index in 0..<current.count where program.indices.contains(current.pc(at: index)) {
            if program[current.pc(at: index)] == .match { return true }
        }
        return false
    }

    func wholeMatch(_ text: String) -> Bool {
        var steps = 0
        return wholeMatch(text, steps: &steps)
    }

    /// Adds the thread at `start` and every thread its jumps, splits and assertions lead to, each
    /// program counter once per position (an explicit stack: no recursion on the program's size).
    private func addThread(_ start: Int, at position: Int, count: Int, to list: inout ThreadList, stack: inout [Int],
                           steps: inout Int) {
        if closureStarts.indices.contains(start + 1) {
            for at in closureStarts[start]..<closureStarts[start + 1] where closureMembers.indices.contains(at) {
                let member = closureMembers[at]
                guard !list.contains(member) else { continue }
                list.insert(member)
                steps += 1
            }
            return
        }
        Self.follow(start, in: program, at: position, count: count, seen: &list, stack: &stack) { _ in steps += 1 }
    }

    /// Walks from `start` through jumps, splits and the assertions that hold at `position` (of
    /// `count` scalars), each program counter once (`seen` notes them: no recursion on the
    /// program's size), telling `reached` each one met, jumps and splits included.
    private static func follow(_ start: Int, in program: [Instruction], at position: Int, count: Int, seen: inout ThreadList,
                               stack: inout [Int], reached: (Int) -> Void) {
        stack.removeAll(keepingCapacity: true)
        stack.append(start)
        while let pc = stack.popLast() {
            guard program.indices.contains(pc), !seen.contains(pc) else { continue }
            seen.insert(pc)
            reached(pc)
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
        // ASCII folds by itself (the Unicode properties' lookup costs far more).
        if scalar.value < 0x80 {
            return (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(UInt8(truncatingIfNeeded: scalar.value + 0x20)) : scalar
        }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        guard lower.count == 1, let only = lower.first else { return scalar }
        return only
    }

    static func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}

/// Why a pattern does not compile.
struct RegexError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A sparse set of program counters: constant-time insert, membership and clear. Both of its
/// arrays live in one buffer (one allocation per list and match): `storage[pc]` is the place of
/// `pc` among the members, `storage[capacity + i]` the i-th member.
struct ThreadList {
    private var storage: [Int]
    private let capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        storage = Array(repeating: 0, count: 2 * self.capacity)
    }

    /// The member at `index` (below `count`).
    func pc(at index: Int) -> Int {
        let at = capacity + index
        return index < count && storage.indices.contains(at) ? storage[at] : -1
    }

    func contains(_ member: Int) -> Bool {
        guard member >= 0, member < capacity else { return true }
        let at = storage[member]
        return at < count && pc(at: at) == member
    }

    mutating func insert(_ member: Int) {
        guard member >= 0, member < capacity, count < capacity else { return }
        storage[member] = count
        storage[capacity + count] = member
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
