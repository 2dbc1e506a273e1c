import MappingCore
@testable import MappingEngine
import MappingJSON
import XCTest
import _MappingTestSupport

/// Keys and string identities are bytes: canonically equivalent spellings (NFC "é" U+00E9 and NFD
/// "é" U+0065 U+0301) are different keys and different identities, on both parsers; an escaped NUL in
/// a key is refused by both.
final class ByteKeyTests: XCTestCase {
    private let nfc = "caf\u{E9}"
    private let nfd = "cafe\u{301}"

    private let spec = """
    {"entities": {"Tag": {"attributes": {"name": "string", "data": "json"}, "identification": "name"}},
     "mappings": {"tag": {"entity": "Tag", "attributes": {"name": "name", "data": "data"}}}}
    """

    private var parsers: [JSONBackend] { ParsedPayload.available }

    func testCanonicallyEquivalentKeysStayApart() throws {
        for parser in parsers {
            let ctx = try TestFixtures.context(spec)
            try ctx.choose(parser: parser)
            let payload = #"{"name": "x", "data": {"\#(nfc)": 1, "\#(nfd)": 2}}"#
            let tag = try XCTUnwrap(try ctx.importJSON(mapping: "tag", payload).first)
            guard case (.json(let data)?, _) = try ctx.value(of: tag, attribute: "data"), case .object(let members) = data.value else {
                return XCTFail("\(parser.name): data is not an object")
            }
            XCTAssertEqual(members.map(\.value), [.integer(1), .integer(2)], "\(parser.name) merged the keys")
            XCTAssertEqual(members.map { Array($0.key.utf8) }, [Array(nfc.utf8), Array(nfd.utf8)])
        }
    }

    func testCanonicallyEquivalentIdentitiesAreTwoObjects() throws {
        for parser in parsers {
            let ctx = try TestFixtures.context(spec)
            try ctx.choose(parser: parser)
            let objects = try ctx.importJSON(mapping: "tag", #"[{"name": "\#(nfc)"}, {"name": "\#(nfd)"}, {"name": "\#(nfc)"}]"#)
            XCTAssertEqual(try ctx.count(of: "Tag"), 2, parser.name)
            XCTAssertEqual(objects[0], objects[2])
            XCTAssertNotEqual(objects[0], objects[1])
            XCTAssertEqual(try ctx.object(of: "Tag", identity: .string(nfd)), objects[1])
            XCTAssertEqual(try ctx.fetch(FetchRequest(entity: "Tag", predicate: "name == %@", arguments: [.string(nfc)])), [objects[0]])
        }
    }

    func testAnEscapedNULInAKeyIsRefusedByBothParsers() throws {
        for parser in parsers {
            let ctx = try TestFixtures.context(spec)
            try ctx.choose(parser: parser)
            XCTAssertThrowsError(try ctx.importJSON(mapping: "tag", #"{"name": "x", "data": {"a\u0000b": 1}}"#)) { error in
                XCTAssertEqual((error as? MappingError)?.code, .parse, parser.name)
            }
            let tag = try XCTUnwrap(try ctx.importJSON(mapping: "tag", #"{"name": "a\u0000b"}"#).first)
            XCTAssertEqual(try ctx.value(of: tag, attribute: "name").0, .string("a\u{0}b"), "a NUL in a value is kept")
        }
    }
}
