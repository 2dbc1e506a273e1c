import MappingArena
@testable import MappingCore
import XCTest

/// The writer's hand-made paths: the eight-bytes-at-a-time scan for bytes a string escapes,
/// integers written without a `String`, and the byte buffer it writes into (grown from a small
/// capacity here, so every test crosses a growth).
final class JSONWriterTests: XCTestCase {
    func testTheScanFindsTheFirstEscapedByteAtEveryPosition() {
        let special: [UInt8] = [0x00, 0x01, 0x0A, 0x1F, UInt8(ascii: "\""), UInt8(ascii: "\\")]
        let ordinary: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xC3, 0xFF]
        for length in 0..<20 {
            for position in 0...length {
                for escaped in special {
                    for filler in ordinary {
                        var bytes = [UInt8](repeating: filler, count: length)
                        if position < length { bytes[position] = escaped }
                        // A second escaped byte later must not be reported first.
                        if position + 3 < length { bytes[position + 3] = UInt8(ascii: "\"") }
                        let found = bytes.withUnsafeBufferPointer { JSONWriter.firstEscaped(in: $0, from: 0) }
                        XCTAssertEqual(found, position == length ? length : position, "\(bytes)")
                        if position < length {
                            let after = bytes.withUnsafeBufferPointer { JSONWriter.firstEscaped(in: $0, from: position + 1) }
                            XCTAssertEqual(after, position + 3 < length ? position + 3 : length, "\(bytes)")
                        }
                    }
                }
            }
        }
    }

    func testStringsAreEscapedAsBefore() {
        let text = "plain \"quoted\" back\\slash\nnew\r\t\u{1}\u{1F} é 日本 \u{1F600} and a long tail to cross eight-byte words"
        var output = ByteOutput(capacity: 4)
        JSONWriter.writeString(text, into: &output)
        XCTAssertEqual(output.string,
                       #""plain \"quoted\" back\\slash\nnew\r\t\u0001\u001f é 日本 😀 and a long tail to cross eight-byte words""#)
    }

    func testIntegersAreWrittenExactly() {
        for number in [Int64.min, Int64.min + 1, -1_000_000, -10, -9, -1, 0, 1, 9, 10, 99, 100, 1_234_567_890, Int64.max] {
            var output = ByteOutput(capacity: 4)
            JSONWriter.writeInteger(number, into: &output)
            XCTAssertEqual(output.string, String(number))
        }
    }

    func testTheBufferKeepsEveryByteAcrossGrowth() {
        var output = ByteOutput(capacity: 1)
        var expected: [UInt8] = []
        for round in 0..<300 {
            let run = (0..<(round % 37)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round) }
            run.withUnsafeBufferPointer { output.append($0) }
            output.append(UInt8(truncatingIfNeeded: round))
            output.append("ab")
            expected += run + [UInt8(truncatingIfNeeded: round)] + Array("ab".utf8)
        }
        output.append(UnsafeBufferPointer<UInt8>(start: nil, count: 0))
        XCTAssertEqual(output.written, expected.count)
        XCTAssertEqual(output.array, expected)
    }
}
