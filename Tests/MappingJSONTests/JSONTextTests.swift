import MappingCore
@testable import MappingJSON
import XCTest

/// A `json` attribute keeps its value as canonical text written straight from the parser's document
/// (`JSONReader.jsonText`). That text must be exactly what writing the tree the importer used to
/// build gives (`copyValue`, then `JSONWriter`), on both parsers, so equality, change detection,
/// serialization and stores see the same values as before; and it must read back as that tree.
final class JSONTextTests: XCTestCase {
    /// The two texts of one document's root: written from the reader, and written from its tree.
    private struct BothTexts: PayloadConsumer {
        typealias Result = (JSONText, JSONText, JSONValue)
        func consume<Reader: JSONReader>(root: Reader.Node, reader: Reader) throws(MappingError) -> Result {
            let written = try reader.jsonText(of: root, depthLimit: 64)  // first: its own depth check is tested
            let tree = try reader.copyValue(of: root, depthLimit: 64)
            return (written, JSONText(tree), tree)
        }
    }

    private func texts(_ json: String, _ parser: JSONBackend) throws -> (JSONText, JSONText, JSONValue) {
        var bytes = Array(json.utf8)
        return try bytes.withUnsafeMutableBytes { raw in
            try ParsedPayload.parse(UnsafeRawBufferPointer(raw), with: parser).read(with: BothTexts())
        }
    }

    /// A seeded generator (SplitMix64): the same documents on every run.
    private struct Seeded {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    private static let scalars = [
        "null", "true", "false", "0", "-1", "9223372036854775807", "-9223372036854775808", "0.5", "-0.0", "1e300",
        "5e-324", "0.1", "1.7976931348623157e308", "2.5E-3", "100000.0", "1e2", "0.10000000000000000001",
        "9007199254740993.0", "123456789012345678901234567890.0", "-0.000000000000000000001",
        #""""#, #""plain""#, #""tab\tnew\nline""#, #""quote \" backslash \\ slash \/""#, #""\u0001\u001f\u0000x""#,
        #""é and \u00e9""#, #""\ud83e\udd16 robot""#, #""a long string with nothing to escape at all, past eight bytes""#,
        #""ends with escape\n""#, #""\"starts""#, "\"caf\u{E9}\u{301} 日本語 \u{1F600}\"",
    ]

    private static func document(_ random: inout Seeded, depth: Int) -> String {
        let pick = random.next(depth > 3 ? 1 : 4)
        switch pick {
        case 1:
            let count = random.next(5)
            return "[" + (0..<count).map { _ in document(&random, depth: depth + 1) }.joined(separator: ", ") + "]"
        case 2:
            let keys = ["a", "b", "key", "é", "e\u{301}", "with \\\"quote", "tab\\there", ""]
            let count = random.next(6)
            // Keys repeat now and then: both parsers keep one member, with the last value.
            return "{" + (0..<count).map { _ in
                "\"\(keys[random.next(keys.count)])\": " + document(&random, depth: depth + 1)
            }.joined(separator: ",") + "}"
        default:
            return scalars[random.next(scalars.count)]
        }
    }

    func testTextWrittenFromEitherParserIsTheTextOfItsTree() throws {
        var random = Seeded(state: 25)
        var checked = 0, refused = 0
        for round in 0..<600 {
            let json = Self.document(&random, depth: 0)
            for parser in ParsedPayload.available {
                let written: JSONText, fromTree: JSONText, tree: JSONValue
                do {
                    (written, fromTree, tree) = try texts(json, parser)
                } catch let error as MappingError where error.code == .range {
                    // A document that spells two numbers one double rounds both to is refused (the
                    // digits meant are unknown), by the writer first: the tree is refused alike.
                    XCTAssertThrowsError(try Self.tree(json, parser), "round \(round)")
                    refused += 1
                    continue
                }
                XCTAssertEqual(written.text, fromTree.text, "round \(round), \(parser.name): \(json)")
                XCTAssertEqual(written, fromTree)
                // Read back, the text is a tree whose text is the same; and where no number changes
                // its kind on the way (see `JSONText`), the tree itself.
                XCTAssertEqual(JSONText(written.value), written, "round \(round): \(json)")
                // Split without parsing (the serializer merges key paths into kept objects so), a
                // container's parts are the texts of the tree's parts.
                switch tree {
                case .object(let members):
                    XCTAssertEqual(written.members?.map(\.key), members.map(\.key), "round \(round)")
                    XCTAssertEqual(written.members?.map(\.value), members.map { JSONText($0.value) }, "round \(round)")
                    XCTAssertNil(written.elements)
                case .array(let elements):
                    XCTAssertEqual(written.elements, elements.map { JSONText($0) }, "round \(round)")
                    XCTAssertNil(written.members)
                default:
                    XCTAssertNil(written.members)
                    XCTAssertNil(written.elements)
                }
                if !json.contains("9007199254740993.0") {
                    XCTAssertEqual(written.value, tree, "round \(round), \(parser.name): \(json)")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 500)
        XCTAssertGreaterThan(refused, 0, "the generator spells ambiguous numbers now and then")
    }

    private struct TreeOnly: PayloadConsumer {
        typealias Result = JSONValue
        func consume<Reader: JSONReader>(root: Reader.Node, reader: Reader) throws(MappingError) -> JSONValue {
            try reader.copyValue(of: root, depthLimit: 64)
        }
    }

    private static func tree(_ json: String, _ parser: JSONBackend) throws -> JSONValue {
        var bytes = Array(json.utf8)
        return try bytes.withUnsafeMutableBytes { raw in
            try ParsedPayload.parse(UnsafeRawBufferPointer(raw), with: parser).read(with: TreeOnly())
        }
    }

    func testRealPayloadsWriteTheTextOfTheirTrees() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let json = try String(contentsOf: root.appendingPathComponent("examples/data/github_events.json"), encoding: .utf8)
        for parser in ParsedPayload.available {
            let (written, fromTree, tree) = try texts(json, parser)
            XCTAssertGreaterThan(written.text.utf8.count, 40_000)
            XCTAssertEqual(written.text, fromTree.text, parser.name)
            XCTAssertEqual(written.value, tree, parser.name)
        }
    }

    func testTextsAreCanonicalAndReadBack() {
        let value: JSONValue = .object([
            JSONMember("s", .string("a\"b\\c\n\u{1}é")), JSONMember("n", .integer(Int64.min)), JSONMember("r", .real(-0.0)),
            JSONMember("list", .array([.null, .bool(true), .bool(false), .real(1e300), .array([]), .object([])])),
            JSONMember("d", .decimal(ExactDecimal(parsing: "0.10000000000000000001") ?? .zero)),
        ])
        let text = JSONText(value)
        XCTAssertEqual(text.text, #"{"s":"a\"b\\c\n\u0001é","n":-9223372036854775808,"r":-0.0,"list":[null,true,false,1e+300,[],{}],"d":0.10000000000000000001}"#)
        XCTAssertEqual(text.value, value)
        XCTAssertNotEqual(JSONText(.real(0.0)), JSONText(.real(-0.0)), "the sign is the payload's")
        XCTAssertEqual(JSONText(.decimal(ExactDecimal(parsing: "12") ?? .zero)).value, .integer(12), "one text, one value")
        XCTAssertEqual(Set([JSONText(.integer(1)), JSONText(.integer(1)), JSONText(.string("1"))]).count, 2)
    }

    func testDepthIsBoundedWhileWriting() throws {
        let deep = String(repeating: "[", count: 80) + String(repeating: "]", count: 80)
        for parser in ParsedPayload.available {
            XCTAssertThrowsError(try texts(deep, parser)) { error in
                XCTAssertEqual((error as? MappingError)?.code, .depth, parser.name)
            }
        }
    }
}
