import XCTest
@testable import MappingCore

/// Splitting large inputs into chunks of representations without parsing them.
final class ChunkSplitterTests: XCTestCase {
    private func chunks(_ text: String, _ format: ChunkSplitter.Format, size: Int) throws -> [String] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { (buffer) throws -> [String] in
            var splitter = ChunkSplitter(buffer, format: format, size: size)
            var result: [String] = []
            while let chunk = try splitter.next() { result.append(String(decoding: chunk.text, as: UTF8.self)) }
            return result
        }
    }

    /// Each chunk: `[`, a stretch of the input as it is (spaces and separators included), `]`.
    func testArraysSplitAtTopLevelCommasOnly() throws {
        let text = #" [ {"a": [1, 2]}, "x,]\"}" , 3,{"b": {"c": "]"}} ] "#
        XCTAssertEqual(try chunks(text, .array, size: 2), [#"[ {"a": [1, 2]}, "x,]\"}" ]"#, #"[ 3,{"b": {"c": "]"}} ]"#])
        XCTAssertEqual(try chunks(text, .array, size: 10).count, 1)
        XCTAssertEqual(try chunks("[]", .array, size: 3), [])
    }

    func testLinesSkipBlankLines() throws {
        XCTAssertEqual(try chunks("{\"a\": 1}\n  \n{\"a\": 2}\r\n{\"a\": 3}", .lines, size: 2),
                       ["[{\"a\": 1},{\"a\": 2}\r]", "[{\"a\": 3}]"])
    }

    func testAnInputThatIsNotAnArrayIsAParseErrorWithItsLocation() {
        for text in ["{}", "", "  x"] {
            XCTAssertThrowsError(try chunks(text, .array, size: 5), text) { error in
                let failure = error as? MappingError
                XCTAssertEqual(failure?.code, .parse)
                XCTAssertTrue(failure?.message.contains("not a JSON array") ?? false, failure?.message ?? "")
            }
        }
    }

    /// The splitter's own findings: the problem, the byte it is at, and the probe the parser checks.
    private func problems(_ text: String, size: Int) throws -> [(offset: Int, probe: String)] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { (buffer) throws -> [(offset: Int, probe: String)] in
            var splitter = ChunkSplitter(buffer, format: .array, size: size)
            var found: [(offset: Int, probe: String)] = []
            var steps = 0
            while let chunk = try splitter.next() {
                steps += 1
                XCTAssertLessThan(steps, 100, "the splitter must end")
                if let problem = chunk.problem {
                    found.append((problem.offset, String(decoding: problem.probe, as: UTF8.self)))
                    break
                }
            }
            return found
        }
    }

    /// `[0},` and `[1}` once looped forever with chunks of one; `[1,,2]`, `[,]`, `[1,]`, `[,1]` were
    /// accepted. Each now ends with the problem at its byte.
    func testMalformedArraysEndWithAProblemAtTheRightByte() throws {
        for (text, offset, probe) in [("[0},", 2, "[0}"), ("[1}", 2, "[0}"), ("[1,,2]", 3, "[0,,"), ("[,]", 1, "[,"),
                                      ("[1,]", 3, "[0,]"), ("[,1]", 1, "[,"), ("[1, ]", 4, "[0,]"),
                                      ("[1] x", 4, "[0]x")] {
            for size in [1, 2, 10_000] {
                let found = try problems(text, size: size)
                XCTAssertEqual(found.map(\.offset), [offset], "\(text) size \(size)")
                XCTAssertEqual(found.map(\.probe), [probe], "\(text) size \(size)")
            }
        }
    }

    func testAStretchCutByTheEndOfTheInputHasNoClosingBracket() throws {
        XCTAssertEqual(try chunks("\n [1, 2", .array, size: 5), ["[1, 2"])
    }

    func testOffsetsMapBackToTheInput() throws {
        let bytes = Array("[10,\n 20,\n 30]".utf8)
        try bytes.withUnsafeBytes { buffer in
            var splitter = ChunkSplitter(buffer, format: .array, size: 2)
            _ = try splitter.next()
            let second = try XCTUnwrap(try splitter.next())
            XCTAssertEqual(String(decoding: second.text, as: UTF8.self), "[\n 30]")
            XCTAssertEqual(second.origin(of: 3), 11, "the 3 of 30 is byte 11 of the input")
        }
    }
}
