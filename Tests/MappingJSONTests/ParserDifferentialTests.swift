import Foundation
import MappingCore
@testable import MappingEngine
@testable import MappingJSON
import XCTest
import _MappingTestSupport

/// The two parser backends must build the same graph from the same text and fail the same way on
/// bad text. (`make test` also runs the whole Swift suite once per parser; these tests compare the
/// two graphs directly, on the fixtures and on real API payloads.)
final class ParserDifferentialTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(ParsedPayload.available.contains(.simdjson), "this build has no simdjson parser")
    }

    /// Every object of every entity, in store order: its attribute values and the positions of its
    /// related objects — everything a graph holds, without the context's own handle bits.
    private func dump(_ ctx: MappingContext) throws -> [String] {
        var lines: [String] = []
        var position: [ObjectID: String] = [:]
        for entity in ctx.model.entities {
            for (index, object) in try ctx.objects(of: entity.name).enumerated() { position[object] = "\(entity.name)#\(index)" }
        }
        for entity in ctx.model.entities {
            for object in try ctx.objects(of: entity.name) {
                var line = position[object] ?? "?"
                for attribute in entity.attributes {
                    line += " \(attribute.name)=\(String(describing: try ctx.value(of: object, attribute: attribute.name).0))"
                }
                for relationship in entity.relationships {
                    let related = relationship.toMany
                        ? try ctx.relatedObjects(of: object, relationship: relationship.name)
                        : [try ctx.relatedObject(of: object, relationship: relationship.name)].compactMap { $0 }
                    line += " \(relationship.name)->\(related.map { position[$0] ?? "?" })"
                }
                lines.append(line)
            }
        }
        return lines
    }

    /// Runs `imports` on a fresh context per parser; returns each graph's dump or error.
    private func both(_ spec: String, _ imports: (MappingContext) throws -> Void) throws -> (String, String) {
        var results: [String] = []
        for parser in [JSONBackend.jansson, .simdjson] {
            let ctx = try TestFixtures.context(spec)
            try ctx.choose(parser: parser)
            do {
                try imports(ctx)
                results.append(try dump(ctx).joined(separator: "\n"))
            } catch let error as MappingError {
                results.append("error \(error.code) \(error.message) path=\(error.path) at \(error.line):\(error.column):\(error.position)"
                               + "\n" + (try dump(ctx).joined(separator: "\n")))
            }
        }
        return (results[0], results[1])
    }

    @discardableResult
    private func assertSame(_ spec: String, file: StaticString = #filePath, line: UInt = #line,
                            _ imports: (MappingContext) throws -> Void) throws -> String {
        let (jansson, simdjson) = try both(spec, imports)
        XCTAssertFalse(jansson.isEmpty, file: file, line: line)
        XCTAssertEqual(jansson, simdjson, file: file, line: line)
        return jansson
    }

    func testFixturesGiveTheSameGraph() throws {
        let spec = try TestFixtures.text("people.spec.json")
        try assertSame(spec) { ctx in
            _ = try ctx.importJSON(mapping: "person", try TestFixtures.text("people.json"))
            _ = try ctx.importJSON(mapping: "person", try TestFixtures.text("people_update.json"))
        }
        try assertSame(TestFixtures.peopleSpec) { ctx in _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload) }
    }

    func testDuplicateKeysKeepTheLastValueWhereTheKeyFirstAppeared() throws {
        let payload = #"{"data": {"people": [{"id": 1, "name": "first", "tags": {"x": 1, "y": 2, "x": 3}, "name": "last"}]}}"#
        try assertSame(TestFixtures.peopleSpec) { ctx in _ = try ctx.importJSON(mapping: "person", payload) }
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        try ctx.choose(parser: .simdjson)
        let person = try XCTUnwrap(try ctx.importJSON(mapping: "person", payload).first)
        XCTAssertEqual(try ctx.value(of: person, attribute: "name").0, .string("last"))
        XCTAssertEqual(try ctx.value(of: person, attribute: "tags").0,
                       .json(.object([JSONMember("x", .integer(3)), JSONMember("y", .integer(2))])))
        // Objects past the reader's small-object size take the other path to the same answer.
        let many = (0..<20).map { #""k\#($0)": \#($0)"# }.joined(separator: ", ")
        for tags in ["{\(many)}", "{\(many), \"k3\": \"again\"}", #"{"a": 1, "b": 2, "c": 3}"#] {
            let text = #"{"data": {"people": [{"id": 2, "tags": \#(tags)}]}}"#
            try assertSame(TestFixtures.peopleSpec) { ctx in _ = try ctx.importJSON(mapping: "person", text) }
        }
        let repeated = try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 3, "tags": {\#(many), "k3": "again"}}]}}"#)
        guard case .json(let tags)? = try ctx.value(of: try XCTUnwrap(repeated.first), attribute: "tags").0, case .object(let members) = tags.value else {
            return XCTFail("tags is not an object")
        }
        XCTAssertEqual(members.count, 20)
        XCTAssertEqual(members[3], JSONMember("k3", .string("again")))
    }

    /// simdjson's reader gathers a representation's mapped members in one walk (`MemberTable`);
    /// jansson looks each key up. Keys chosen to meet every branch of the table: 1–3 bytes (which
    /// share bytes), 4–7, 8–16, longer ones equal in their first and last 8 bytes, non-ASCII, more
    /// keys than the smallest table holds, alternatives, a relationship, duplicates, keys the mapping
    /// does not read (the empty one among them), and a nested object of the same mapping.
    func testGatheredMembersAnswerAsKeyLookups() throws {
        let keys = ["a", "ab", "aba", "abcd", "abcde", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmnop",
                    "abcdefghXbcdefghi", "abcdefghYbcdefghi", "ab\\u00e9", "\\u00e9", "k9", "k10"]
        let attributes = keys.indices.map { #""v\#($0)": "string""# }.joined(separator: ", ")
        let mapped = keys.enumerated().map { #""v\#($0.offset)": "\#($0.element)""# }.joined(separator: ", ")
        let spec = """
        {"entities": {"Item": {"attributes": {"id": "integer", \(attributes), "alt": "string"},
                               "relationships": {"child": {"entity": "Item"}}}},
         "mappings": {"item": {"entity": "Item", "attributes": {"id": "id", \(mapped), "alt": ["missing", "k10", "a"]},
                               "relationships": {"child": {"mapping": "item"}}}}}
        """
        let members = keys.enumerated().map { #""\#($0.element)": "value \#($0.offset)""# }
        let payloads = [
            "{\"id\": 1, " + members.joined(separator: ", ") + "}",
            "{\"id\": 2, " + members.reversed().joined(separator: ", ") + ", \"abcdefghZbcdefghi\": \"not mapped\", \"abc\": \"nor this\"}",
            #"{"id": 3, "a": "first", "abcdefghXbcdefghi": "x", "a": "last", "": "empty", "child": {"id": 4, "ab": "inner", "a": "inner a"}, "ab": "outer"}"#,
            #"[{"id": 5, "k10": "ten", "k9": null}, {"id": 6, "aba": 7}, {"id": 7}, {"id": 8, "child": null}]"#,
        ]
        for payload in payloads {
            try assertSame(spec) { ctx in _ = try ctx.importJSON(mapping: "item", payload) }
        }
        let ctx = try TestFixtures.context(spec)
        try ctx.choose(parser: .simdjson)
        let third = try XCTUnwrap(try ctx.importJSON(mapping: "item", payloads[2]).first)
        XCTAssertEqual(try ctx.value(of: third, attribute: "v0").0, .string("last"), "the last of a duplicated key")
        XCTAssertEqual(try ctx.value(of: third, attribute: "v1").0, .string("outer"))
        XCTAssertEqual(try ctx.value(of: third, attribute: "v9").0, .string("x"))
        XCTAssertNil(try ctx.value(of: third, attribute: "v10").0, "a long key equal in its first and last 8 bytes is another key")
        XCTAssertEqual(try ctx.value(of: third, attribute: "alt").0, .string("last"), "the first alternative present")
        let child = try XCTUnwrap(try ctx.relatedObject(of: third, relationship: "child"))
        XCTAssertEqual(try ctx.value(of: child, attribute: "v1").0, .string("inner"), "the nested object's own members")
        XCTAssertEqual(try ctx.value(of: child, attribute: "v0").0, .string("inner a"))
        XCTAssertNil(try ctx.value(of: child, attribute: "v9").0)
        let second = try XCTUnwrap(try ctx.importJSON(mapping: "item", payloads[1]).first)
        XCTAssertEqual(try ctx.value(of: second, attribute: "v11").0, .string("value 11"), "a non-ASCII key")
        XCTAssertEqual(try ctx.value(of: second, attribute: "v12").0, .string("value 12"))
        XCTAssertEqual(try ctx.value(of: second, attribute: "v10").0, .string("value 10"))
        XCTAssertEqual(try ctx.value(of: second, attribute: "v14").0, .string("value 14"))
        XCTAssertEqual(try ctx.value(of: second, attribute: "alt").0, .string("value 14"))
    }

    func testMalformedTextFailsAlikeAndChangesNothing() throws {
        let deep = String(repeating: "[", count: 1500) + String(repeating: "]", count: 1500)
        let texts = ["[1,\n 2,,]", "", "  ", "{\"a\": 1} trailing", "{\"data\": {\"people\": [{\"id\": 18446744073709551615}]}}",
                     "[123456789012345678901234567890]", "[1e400]", "{\"a\" 1}", "[\"\\u12\"]", "[\"tab\there\"]",
                     "{\"data\": {\"people\": [{\"id\": 5, \"name\": \"nul\\u0000inside\", \"age\": -0.5}]}}", deep, "[-0, -0.0, 1E2, 0.1]"]
        for text in texts {
            let outcome = try assertSame(TestFixtures.peopleSpec) { ctx in
                _ = try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 1, "name": "kept"}]}}"#)
                _ = try ctx.importJSON(mapping: "person", text)
            }
            XCTAssertTrue(outcome.hasPrefix("error") && outcome.contains("name=Optional(MappingCore.AttributeValue.string(\"kept\"))"),
                          "\(text.prefix(40)): \(outcome.prefix(300))")
        }
        var invalidUTF8 = Array(#"{"data": {"people": [{"id": 2, "name": ""#.utf8)
        invalidUTF8 += [0xC3, 0x28] + Array(#""}]}}"#.utf8)
        try assertSame(TestFixtures.peopleSpec) { ctx in
            _ = try invalidUTF8.withUnsafeBytes { bytes in try ctx.importJSON(mapping: "person", bytes) }
        }
    }

    /// A context's pool keeps a parser for its next import, but not one whose buffers a large
    /// document grew: those are freed with the document.
    func testThePoolKeepsSmallParsersOnly() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        try ctx.choose(parser: .simdjson)
        XCTAssertEqual(ctx.parsers.count, 0, "a new context holds no parser")
        _ = try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 1, "name": "small"}]}}"#)
        XCTAssertEqual(ctx.parsers.count, 1, "a parser kept after a small import")
        _ = try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 3, "name": "again"}]}}"#)
        XCTAssertEqual(ctx.parsers.count, 1, "the kept parser was used again, not joined by another")
        let long = String(repeating: "x", count: 17 << 20)
        _ = try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 2, "name": "\#(long)"}]}}"#)
        XCTAssertEqual(try ctx.value(of: try XCTUnwrap(ctx.object(of: "Person", identity: .integer(2))), attribute: "name").0,
                       .string(long))
        XCTAssertEqual(ctx.parsers.count, 0, "the grown parser was freed, not kept")
    }

    /// Each context keeps its own parsers, and they go with it: a closed context leaves no parser's
    /// buffers behind (when the process kept them, 13 MB of people left 60 MB resident), and
    /// another context's imports do not take them.
    func testAContextsParsersGoWithIt() throws {
        weak var released: ParserPool?
        let other = try TestFixtures.context(TestFixtures.peopleSpec)
        try other.choose(parser: .simdjson)
        try {
            let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
            try ctx.choose(parser: .simdjson)
            _ = try ctx.importJSON(mapping: "person", #"{"data": {"people": [{"id": 1, "name": "kept"}]}}"#)
            XCTAssertEqual(ctx.parsers.count, 1)
            XCTAssertEqual(other.parsers.count, 0, "one context's import kept its parser in its own pool")
            released = ctx.parsers
        }()
        XCTAssertNil(released, "the context's pool, and the parser only it held, were freed with the context")
        _ = try other.importJSON(mapping: "person", #"{"data": {"people": [{"id": 2, "name": "own"}]}}"#)
        XCTAssertEqual(other.parsers.count, 1)
        XCTAssertEqual(try other.count(of: "Person"), 1)
    }

    func testChunkedImportsGiveTheSameGraph() throws {
        let lines = (1...250).map { #"{"id": \#($0), "name": "p\#($0)", "company": {"id": \#($0 % 7), "name": "c"}}"# }
        let input = Array(lines.joined(separator: "\n").utf8)
        try assertSame(TestFixtures.peopleSpec) { ctx in
            _ = try input.withUnsafeBytes { bytes in try ctx.importChunked(mapping: "person", bytes, format: .lines, chunkSize: 16) }
        }
    }

    /// Real API payloads kept in the repository, each mapped whole into `json` attributes, and the
    /// GitHub events also by identity: every string (escapes, non-ASCII), number and nesting of the
    /// files passes through both readers. A payload missing from the checkout fails the test.
    func testRealPayloadsGiveTheSameGraph() throws {
        let spec = """
            {"entities": {
               "Doc": {"attributes": {"id": "integer", "body": "json"}, "identification": "id"},
               "User": {"attributes": {"id": "integer", "login": "string", "avatar": "string"}, "identification": "id"},
               "Event": {"attributes": {"type": "string", "created": "date", "payload": "json"},
                         "relationships": {"actor": {"entity": "User"}}}},
             "mappings": {
               "whole": {"entity": "Doc", "attributes": {"id": "@metadata.mapping.collectionIndex", "body": "@self"}},
               "event": {"entity": "Event", "attributes": {"type": "type", "created": "created_at", "payload": "payload"},
                         "relationships": {"actor": {"keyPath": "actor", "mapping": "user"}}},
               "user": {"entity": "User", "attributes": {"id": "id", "login": "login", "avatar": "avatar_url"}}}}
            """
        let root = TestFixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        let files = ["examples/data/github_events.json", "Tests/fixtures/people.json", "Tests/fixtures/reference/users.json",
                     "Tests/fixtures/reference/DynamicKeysWithRelationship.json"]
        for file in files {
            let data = try Data(contentsOf: root.appendingPathComponent(file))
            let bytes = [UInt8]("[".utf8) + [UInt8](data) + [UInt8]("]".utf8)
            let (jansson, simdjson) = try both(spec) { ctx in
                _ = try bytes.withUnsafeBytes { text in try ctx.importJSON(mapping: "whole", text) }
                if file.hasSuffix("github_events.json") {
                    _ = try data.withUnsafeBytes { text in try ctx.importJSON(mapping: "event", text) }
                    XCTAssertEqual(try ctx.count(of: "Event"), 30)
                }
            }
            XCTAssertTrue(jansson.hasPrefix("Doc#0"), "\(file): \(jansson.prefix(200))")
            XCTAssertEqual(jansson, simdjson, file)
        }
    }
}
