import XCTest
@testable import MappingCore

/// MATCHES patterns: the supported syntax matches as ICU does for whole strings, the unsupported is
/// refused with a reason, and no pattern makes a match take more than linear time.
final class LinearRegexTests: XCTestCase {
    private func matches(_ pattern: String, _ text: String, caseInsensitive: Bool = false) throws -> Bool {
        try LinearRegex(pattern, caseInsensitive: caseInsensitive).wholeMatch(text)
    }

    func testSupportedSyntax() throws {
        let table: [(String, String, Bool)] = [
            ("abc", "abc", true), ("abc", "abcd", false), ("abc", "ab", false), ("", "", true), ("", "a", false),
            ("a.c", "abc", true), ("a.c", "a\nc", false), ("a.c", "a🧪c", true),
            (#"a\.c"#, "a.c", true), (#"a\.c"#, "abc", false), (#"\*\+\?\(\)\[\]\{\}\\\|\^\$"#, #"*+?()[]{}\|^$"#, true),
            (#"\t\n\r\f"#, "\t\n\r\u{0C}", true), (#"\u00e9"#, "é", true), (#"\x41\x{1F9EA}"#, "A🧪", true),
            (#"\d+"#, "0123", true), (#"\d+"#, "12a", false), (#"\d"#, "٣", true), (#"\D\W\S"#, "a-b", true), (#"\D\W\S"#, "1-b", false),
            (#"\D\W\S"#, "a- ", false), (#"\w+"#, "héllo_1", true), (#"\s+"#, " \t\n", true),
            ("[abc]+", "abccba", true), ("[abc]+", "abd", false), ("[a-z0-9_]+", "ab_09", true), ("[^a-z]+", "ABC1", true),
            ("[^a-z]+", "ABc", false), (#"[\d\s-]+"#, "1 2-3", true), ("[]a]+", "]a]", true), ("[a-]+", "a-a", true),
            ("^abc$", "abc", true), ("a^b", "ab", false), ("(?:ab)+", "ababab", true), ("(ab|cd)*", "abcdab", true),
            ("(ab|cd)*", "abc", false), ("a|b|c", "b", true), ("a|b|c", "d", false), ("a|", "", true),
            ("a*", "", true), ("a+", "", false), ("a?b", "b", true), ("a?b", "aab", false),
            ("a{3}", "aaa", true), ("a{3}", "aa", false), ("a{2,}", "aaaaa", true), ("a{2,}", "a", false),
            ("a{1,3}", "aaa", true), ("a{1,3}", "aaaa", false), ("a{0}b", "b", true), ("a*?b", "aab", true),
            ("a+?", "aaa", true), ("a??", "", true), ("[A-Z][a-z]+ [A-Z][a-z]+", "Ada Lovelace", true),
            (".*i.*", "Paris", true), (".*i.*", "London", false), ("(a|ab)(c|bcd)(d*)", "abcd", true),
        ]
        for (pattern, text, expected) in table {
            XCTAssertEqual(try matches(pattern, text), expected, "\(pattern) against \(text.debugDescription)")
        }
    }

    func testCaseInsensitive() throws {
        XCTAssertTrue(try matches("BOB", "bob", caseInsensitive: true))
        XCTAssertTrue(try matches("[a-c]+", "ABC", caseInsensitive: true))
        XCTAssertTrue(try matches("[A-C]+", "abc", caseInsensitive: true))
        XCTAssertTrue(try matches("straße", "STRAßE", caseInsensitive: true))
        XCTAssertFalse(try matches("BOB", "bob"))
        XCTAssertFalse(try matches("[^a-z]", "Q", caseInsensitive: true), "Q folds to q, which the class excludes")
    }

    func testUnsupportedSyntaxIsRefusedWithAReason() {
        for (pattern, reason) in [("(", "not closed"), ("a)", "unbalanced"), ("[ab", "not closed"), ("*a", "nothing to repeat"),
                                  (#"(a)\1"#, "not supported"), ("(?=a)", "lookaround"), ("(?<n>a)", "lookaround"), ("a++", "possessive"),
                                  (#"\b"#, "not supported"), ("a{2,1}", "reversed"), ("a{1001}", "past 1000"), ("[z-a]", "reversed"),
                                  (#"\u12"#, "hexadecimal"), ("a{", "repetition"), (#"a\"#, "lone"),
                                  (String(repeating: "(", count: 300) + String(repeating: ")", count: 300), "nest"),
                                  ("(a{1000}){1000}", "steps")] {
            XCTAssertThrowsError(try LinearRegex(pattern, caseInsensitive: false), pattern) { error in
                let message = (error as? RegexError)?.message ?? ""
                XCTAssertTrue(message.contains(reason), "\(pattern): \(message)")
            }
        }
    }

    /// The patterns that take a backtracking engine exponential time answer correctly, and the work is
    /// bounded by the program's size times the subject's length (counted, not timed).
    func testPathologicalPatternsStayLinear() throws {
        for (pattern, unit, tail) in [("(a+)+b", "a", "!"), ("(a|a)*b", "a", ""), ("(a*)*b", "a", "c"), ("(.*a){20}", "a", "!"),
                                      ("(x+x+)+y", "x", ""), ("(\\w+\\s?)+$", "word ", "!")] {
            let regex = try LinearRegex(pattern, caseInsensitive: false)
            for length in [30, 1_000, 10_000] {
                let subject = String(repeating: unit, count: length) + tail
                var steps = 0
                XCTAssertFalse(regex.wholeMatch(subject, steps: &steps), "\(pattern) on \(length)")
                let bound = 2 * regex.program.count * (subject.unicodeScalars.count + 1)
                XCTAssertLessThanOrEqual(steps, bound, "\(pattern) on \(length) took \(steps) steps")
            }
        }
        var steps = 0
        XCTAssertTrue(try LinearRegex("(a+)+b", caseInsensitive: false).wholeMatch(String(repeating: "a", count: 5_000) + "b", steps: &steps))
    }

    /// A pattern without `^` or `$` follows each thread's jumps and splits through closures made
    /// once per pattern; the same pattern anchored (whole matches make `^…$` change nothing)
    /// follows them as it goes. Both ways agree on random patterns and subjects (seeded), ASCII
    /// and not, case-sensitive and not.
    func testClosuresAgreeWithFollowingThreadsAsTheyCome() throws {
        var seed: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        let fragments = ["a", "b", "é", ".", "[ab]", "[^a]", "(a|bc)", "a*", "b+", "(ab)?", "a{1,3}", "\\d", "(a|b)*", "(?:é|a)+", "B"]
        let letters: [Character] = ["a", "b", "c", "1", "é", "A", "\n"]
        var agreed = 0
        for _ in 0..<400 {
            let pattern = (0..<(1 + next(4))).map { _ in fragments[next(fragments.count)] }.joined()
            let caseInsensitive = next(2) == 0
            let free = try LinearRegex(pattern, caseInsensitive: caseInsensitive)
            let anchored = try LinearRegex("^(?:" + pattern + ")$", caseInsensitive: caseInsensitive)
            for _ in 0..<20 {
                let subject = String((0..<next(7)).map { _ in letters[next(letters.count)] })
                XCTAssertEqual(free.wholeMatch(subject), anchored.wholeMatch(subject), "\(pattern) on \(subject.debugDescription)")
                agreed += 1
            }
        }
        XCTAssertEqual(agreed, 8_000)
        XCTAssertTrue(try LinearRegex("(a|bc)*é", caseInsensitive: true).wholeMatch("ABCaÉ"))
        XCTAssertFalse(try LinearRegex("(a|bc)*é", caseInsensitive: false).wholeMatch("ABCaé"))
    }
}
