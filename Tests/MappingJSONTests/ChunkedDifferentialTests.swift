import MappingCore
@testable import MappingEngine
import MappingJSON
import XCTest
import _MappingTestSupport

/// A chunked import accepts and rejects what a plain import of the same array does: the same count
/// and graph when both succeed, and for a malformed array the same parse error at the same line,
/// column and position — for every chunk size, on the parser under test — leaving the graph as it was.
/// (One difference is by design: an element that does not map, in a chunk before a malformation
/// later in the input, fails the chunked import with its mapping error; both still fail.)
final class ChunkedDifferentialTests: XCTestCase {
    private let spec = """
    {"entities": {"Tag": {"attributes": {"label": "string", "n": "integer"}, "identification": "label"}},
     "mappings": {"tag": {"entity": "Tag", "attributes": {"label": "label", "n": "n"}}}}
    """

    private enum Outcome: Equatable {
        case imported(Int, [String])
        case failed(MappingError.Code, String, Int, Int, Int)
    }

    private func outcome(_ text: [UInt8], chunkSize: Int?) throws -> Outcome {
        let ctx = try TestFixtures.context(spec)
        _ = try ctx.importJSON(mapping: "tag", #"[{"label": "before"}]"#)
        do {
            let count = try text.withUnsafeBytes { (bytes) throws(MappingError) -> Int in
                if let chunkSize {
                    return try ctx.importChunked(mapping: "tag", bytes, format: .array, chunkSize: chunkSize)
                }
                return try ctx.importJSON(mapping: "tag", bytes).count
            }
            let labels = try ctx.objects(of: "Tag").map { object -> String in
                guard case (.string(let label)?, _) = try ctx.value(of: object, attribute: "label") else { return "?" }
                return label
            }
            return .imported(count, labels)
        } catch let error as MappingError {
            XCTAssertEqual(try ctx.count(of: "Tag"), 1, "a failed import changed the graph")
            let message = error.code == .parse || error.code == .depth ? error.message : ""
            return .failed(error.code == .parse || error.code == .depth ? error.code : .type, message,
                           error.line, error.column, error.position)
        }
    }

    private func check(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try check(Array(text.utf8), file: file, line: line)
    }

    /// Compares a plain and a chunked import of `bytes`; returns how many chunked imports failed with
    /// a mapping error where the plain one failed to parse.
    @discardableResult
    private func check(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        guard bytes.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) == 0x5B else { return 0 }  // arrays only
        let plain = try outcome(bytes, chunkSize: nil)
        var mappedFirst = 0
        for size in [1, 2, 3, 10_000] {
            let chunked = try outcome(bytes, chunkSize: size)
            switch (plain, chunked) {
            case (.failed(let a, _, _, _, _), .failed(let b, _, _, _, _)) where a == .type || b == .type:
                if a != b { mappedFirst += 1 }
            default:
                XCTAssertEqual(chunked, plain, "chunk size \(size): \(String(decoding: bytes, as: UTF8.self))", file: file, line: line)
            }
        }
        return mappedFirst
    }

    func testMalformedArraysFailAsThePlainImportDoes() throws {
        for text in [
            "[1,]", "[,]", "[,1]", "[1,,2]", "[1}", "[0},", "[}", "[", "[ ", "[{\"label\": \"a\"},", "[{\"label\": \"a\"}",
            "[{\"label\": \"a\"} {\"label\": \"b\"}]", "[{\"label\": \"a\"},\n  ]", "[1 2]", "[{\"label\": \"a\"}]x",
            "[] ,", "[{\"label\": \"a\"}:1]", "[\"x\" \"y\"]", "[tru]", "[{\"label\": \"a\"} , }", "[{\"label\": \"a\"}\n\n  ,\n  ,]",
            "[1.5e]", "[\"\\u00\"]", "[{\"label\": \"a\",}]", "[\n{\"label\": \"é\"}\n,\n 1x]", "[\"abc", "[{\"label\": \"a\"}, \"x]",
            "[{\"a\":[1}]", "[{\"label\": \"a\"},{\"label\": \"b\"}] xyz", "[{\"label\": \"a\"},\n{\"label\": \"b\"},\n]",
        ] {
            try check(text)
        }
        try check(Array("[".utf8) + [0xFF, 0xFE] + Array("]".utf8))
        try check(Array("[{\"label\": \"x\"},\n".utf8) + [0xEF] + Array(" {\"label\": \"y\"}]".utf8))  // found by fuzzing
        try check(Array("[{".utf8) + [0xC9, 0xAB] + Array("ab\": \"y\"}, {\"label\": \"é\", \"n\": x}]".utf8))  // found by fuzzing
        try check("[" + String(repeating: "[", count: 3000) + String(repeating: "]", count: 3000) + "]")
        // After the array, a token longer than the splitter's old 1,024-byte probe (found by fuzzing:
        // the chunked import put the end of input where the probe ended).
        try check("[]\"" + String(repeating: "[", count: 1582) + "]")
        try check("[{\"label\": \"a\"}] " + String(repeating: "7", count: 3000))
    }

    func testWellFormedArraysImportTheSame() throws {
        for text in ["[]", "[ ]", "  [ {\"label\": \"q\"} ]  ", "[{\"label\": \"a\", \"n\": 1},\n{\"label\": \"b\"},\n{\"label\": \"a\", \"n\": 2}]",
                     "[{\"label\": \"x,]\\\"}\"}, {\"label\": \"[{\"}]"] {
            try check(text)
        }
    }

    func testATrailingCommaAfterManyElementsFailsBeforeAnythingIsMapped() throws {
        let elements = (0..<10_000).map { #"{"label": "t\#($0)"}"# }
        try check("[" + elements.joined(separator: ",") + ",]")
    }

    /// Seeded mutations of a valid array: insert, delete or replace one byte with a JSON-significant one.
    func testRandomMutationsAgree() throws {
        let valid = Array(#"[{"label": "a", "n": 1}, {"label": "b,]"}, {"label": "c", "n": 2}, {"label": "d\"x"}]"#.utf8)
        let alphabet = Array(#"[]{},": 0a\"#.utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        var mappedFirst = 0
        for _ in 0..<400 {
            var text = valid
            for _ in 0...next(2) {
                let at = next(text.count)
                switch next(3) {
                case 0: text.insert(alphabet[next(alphabet.count)], at: at)
                case 1: text.remove(at: at)
                default: text[at] = alphabet[next(alphabet.count)]
                }
            }
            mappedFirst += try check(text)
        }
        XCTAssertLessThan(mappedFirst, 100, "most malformed arrays fail as the plain import does")
    }
}
