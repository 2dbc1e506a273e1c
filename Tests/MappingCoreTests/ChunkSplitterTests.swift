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

    func testArraysSplitAtTopLevelCommasOnly() throws {
        let text = #" [ {"a": [1, 2]}, "x,]\"}" , 3,{"b": {"c": "]"}} ] "#
        XCTAssertEqual(try chunks(text, .array, size: 2), [#"[{"a": [1, 2]},"x,]\"}"]"#, #"[3,{"b": {"c": "]"}}]"#])
        XCTAssertEqual(try chunks(text, .array, size: 10).count, 1)
        XCTAssertEqual(try chunks("[]", .array, size: 3), [])
    }

    func testLinesSkipBlankLines() throws {
        XCTAssertEqual(try chunks("{\"a\": 1}\n  \n{\"a\": 2}\r\n{\"a\": 3}", .lines, size: 2),
                       ["[{\"a\": 1},{\"a\": 2}\r]", "[{\"a\": 3}]"])
    }

    func testBadShapesAreParseErrorsWithLocations() {
        for (text, message, line, column) in [("{}", "not a JSON array", 1, 1), ("\n [1, 2", "not closed", 2, 7),
                                              ("[1]\n x", "after the end", 2, 2)] {
            XCTAssertThrowsError(try chunks(text, .array, size: 5), text) { error in
                let failure = error as? MappingError
                XCTAssertEqual(failure?.code, .parse)
                XCTAssertTrue(failure?.message.contains(message) ?? false, failure?.message ?? "")
                XCTAssertEqual(failure.map { [$0.line, $0.column] }, [line, column], text)
            }
        }
    }

    func testOffsetsMapBackToTheInput() throws {
        let bytes = Array("[10,\n 20,\n 30]".utf8)
        try bytes.withUnsafeBytes { buffer in
            var splitter = ChunkSplitter(buffer, format: .array, size: 2)
            _ = try splitter.next()
            let second = try XCTUnwrap(try splitter.next())
            XCTAssertEqual(String(decoding: second.text, as: UTF8.self), "[30]")
            XCTAssertEqual(second.origin(of: 1), 11, "the 3 of 30 is byte 11 of the input")
        }
    }
}
