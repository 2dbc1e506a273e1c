import XCTest
@testable import MappingCore
import MappingJSON

/// Spec validation and identification inference.
final class SpecTests: XCTestCase {
    private func load(_ text: String) throws -> CompiledSpec { try CompiledSpec.load(json: text) }

    private func identification(of entity: String, attributes: [String], explicit: String? = nil) throws -> [String] {
        let names = attributes.map { "\"\($0)\": \"string\"" }.joined(separator: ", ")
        let identification = explicit.map { ", \"identification\": \($0)" } ?? ""
        let spec = try load("""
            {"entities": {"\(entity)": {"attributes": {\(names)}\(identification)}},
             "mappings": {"m": {"entity": "\(entity)"}}}
            """)
        let declared = try XCTUnwrap(spec.model.entity(named: entity))
        return declared.identification.map { declared.attributes[$0].name }
    }

    private func expectSpecError(_ text: String, path: String, contains fragment: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try load(text), file: file, line: line) { error in
            let error = error as? MappingError
            XCTAssertEqual(error?.code, .spec, file: file, line: line)
            XCTAssertEqual(error?.path, path, file: file, line: line)
            XCTAssertTrue(error?.message.contains(fragment) == true, "\(error?.message ?? "")", file: file, line: line)
        }
    }

    func testInferenceByNameE1E2E3() throws {
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["name", "monkeyID"]), ["monkeyID"])
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["ID"]), ["ID"])
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["identifier"]), ["identifier"])
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["URL"]), ["URL"])
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["url"]), ["url"])
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["monkey_id"]), ["monkey_id"])
        XCTAssertEqual(try identification(of: "ArcticMonkey", attributes: ["arctic_monkey_id"]), ["arctic_monkey_id"])
        XCTAssertEqual(try identification(of: "ArcticMonkeyURL", attributes: ["arctic_monkey_url_id"]),
                       ["arctic_monkey_url_id"])
        XCTAssertEqual(try identification(of: "ArcticMonkey", attributes: ["id", "arcticMonkeyID"]), ["arcticMonkeyID"])
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["name"]), [], "none found: always insert")
    }

    func testExplicitIdentificationE4E5() throws {
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["monkeyID", "name"], explicit: "\"name\""), ["name"])
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["monkeyID", "name"], explicit: "\"name,monkeyID\""),
                       ["name", "monkeyID"])
        XCTAssertEqual(try identification(of: "Monkey", attributes: ["monkeyID", "name"], explicit: "[\"name\", \"monkeyID\"]"),
                       ["name", "monkeyID"])
    }

    func testInvalidIdentificationE6E7E11() {
        expectSpecError(#"{"entities": {"Monkey": {"attributes": {"name": "string"}, "identification": 12345}}, "mappings": {"m": {"entity": "Monkey"}}}"#,
                        path: "$.entities.Monkey.identification", contains: "string or an array")
        expectSpecError(#"{"entities": {"Monkey": {"attributes": {"name": "string"}, "identification": "nonExistant"}}, "mappings": {"m": {"entity": "Monkey"}}}"#,
                        path: "$.entities.Monkey.identification", contains: "\"nonExistant\"")
        expectSpecError(#"{"entities": {"Monkey": {"attributes": {"name": "string"}, "identification": []}}, "mappings": {"m": {"entity": "Monkey"}}}"#,
                        path: "$.entities.Monkey.identification", contains: "at least one")
    }

    func testInferenceSearchesParentEntitiesE8E9() throws {
        let spec = try load("""
            {"entities": {
               "Parent": {"attributes": {"monkeyID": "integer"}},
               "Monkey": {"parent": "Parent"},
               "Named": {"attributes": {"name": "string", "namedID": "integer"}, "identification": "name"},
               "SubNamed": {"parent": "Named"}},
             "mappings": {"m": {"entity": "Monkey"}}}
            """)
        let monkey = try XCTUnwrap(spec.model.entity(named: "Monkey"))
        XCTAssertEqual(monkey.identification.map { monkey.attributes[$0].name }, ["monkeyID"])
        XCTAssertEqual(try XCTUnwrap(spec.model.entity(named: "Parent")).identification, [], "no parentID, no id")
        let sub = try XCTUnwrap(spec.model.entity(named: "SubNamed"))
        XCTAssertEqual(sub.identification.map { sub.attributes[$0].name }, ["name"])
        XCTAssertEqual(sub.identityMap, spec.model.entity(named: "Named")?.identityMap, "one identity map per hierarchy")
    }

    func testSpecErrorsNameThePath() {
        expectSpecError(#"{"entities": {"A": {"attributes": {"x": "text"}}}, "mappings": {"m": {"entity": "A"}}}"#,
                        path: "$.entities.A.attributes.x", contains: "unknown attribute type \"text\"")
        expectSpecError(#"{"entities": {"A": {"attributes": {"x": "string"}}}, "mappings": {"m": {"entity": "B"}}}"#,
                        path: "$.mappings.m.entity", contains: "unknown entity \"B\"")
        expectSpecError(#"{"entities": {"A": {"relationships": {"b": {"entity": "A", "inverse": "c"}}}}, "mappings": {"m": {"entity": "A"}}}"#,
                        path: "$.entities.A.relationships.b.inverse", contains: "no relationship \"c\"")
        expectSpecError(#"{"entities": {"A": {"relationships": {"b": {"entity": "B", "inverse": "a"}}}, "B": {"relationships": {"a": {"entity": "B"}}}}, "mappings": {"m": {"entity": "A"}}}"#,
                        path: "$.entities.A.relationships.b.inverse", contains: "not back to \"A\"")
        expectSpecError(#"{"entities": {"A": {"relationships": {"b": {"entity": "B", "inverse": "a"}, "c": {"entity": "B", "inverse": "a"}}}, "B": {"relationships": {"a": {"entity": "A"}}}}, "mappings": {"m": {"entity": "A"}}}"#,
                        path: "$.entities.A.relationships.c.inverse", contains: "names \"b\" as its inverse")
        expectSpecError(#"{"entities": {"A": {"parent": "B"}, "B": {"parent": "A"}}, "mappings": {"m": {"entity": "A"}}}"#,
                        path: "$.entities.A.parent", contains: "its own ancestor")
        expectSpecError(#"{"entities": {"A": {"colour": "red"}}, "mappings": {"m": {"entity": "A"}}}"#,
                        path: "$.entities.A.colour", contains: "unknown key \"colour\"")
        expectSpecError(#"{"entities": {"A": {}}, "mappings": {"m": {"entity": "A", "deletionPredicate": "x"}}}"#,
                        path: "$.mappings.m.deletionPredicate", contains: "expected a comparison operator, found the end at column 2")
        expectSpecError(#"{"entities": {"A": {}}, "mappings": {"m": {"entity": "A", "routes": 1}}}"#,
                        path: "$.mappings.m.routes", contains: "unknown key")
        expectSpecError(#"{"entities": {"A": {}}, "mappings": {"m": {"entity": "A"}, "d": {"dynamic": {"cases": {"x": "m"}}}}}"#,
                        path: "$.mappings.d.dynamic", contains: "need a \"keyPath\"")
        expectSpecError(#"{"entities": {"A": {}}, "mappings": {"m": {"entity": "A"}, "d": {"dynamic": {"keyPath": "t", "cases": {"x": "n"}}}}}"#,
                        path: "$.mappings.d.dynamic.cases.x", contains: "unknown mapping \"n\"")
        expectSpecError(#"{"entities": {"A": {"attributes": {"x": "string"}}}, "mappings": {"m": {"entity": "A", "attributes": {"y": "y"}}}}"#,
                        path: "$.mappings.m.attributes.y", contains: "no attribute \"y\"")
        expectSpecError(#"{"entities": {"A": {"relationships": {"b": {"entity": "B"}}}, "B": {}, "C": {}}, "mappings": {"m": {"entity": "A", "relationships": {"b": {"mapping": "c"}}}, "c": {"entity": "C"}}}"#,
                        path: "$.mappings.m.relationships.b.mapping", contains: "maps \"C\"")
        expectSpecError(#"{"entities": {"A": {"attributes": {"x": {"type": "integer", "default": "abc"}}}}, "mappings": {"m": {"entity": "A"}}}"#,
                        path: "$.entities.A.attributes.x.default", contains: "not an integer")
        expectSpecError(#"{"entities": {"A": {"relationships": {"b": {"entity": "A", "ordered": true}}}}, "mappings": {"m": {"entity": "A"}}}"#,
                        path: "$.entities.A.relationships.b.ordered", contains: "only a to-many")
        expectSpecError(#"{"entities": {"A": {}}, "mappings": {}}"#, path: "$.mappings", contains: "no mappings")
        expectSpecError(#"{"entities": {"A": {"attributes": {"first name": 3}}}, "mappings": {"m": {"entity": "A"}}}"#,
                        path: #"$.entities.A.attributes["first name"]"#, contains: "expected a type name")
        expectSpecError(#"[1]"#, path: "$", contains: "expected an object")
    }

    func testInverseIsCompletedOnTheSideThatNamesNone() throws {
        let spec = try load("""
            {"entities": {"A": {"relationships": {"bs": {"entity": "B", "toMany": true, "inverse": "a"}}},
                          "B": {"relationships": {"a": {"entity": "A"}}}},
             "mappings": {"m": {"entity": "A"}}}
            """)
        let b = try XCTUnwrap(spec.model.entity(named: "B"))
        let a = try XCTUnwrap(spec.model.entity(named: "A"))
        XCTAssertEqual(b.relationships[0].inverse, a.relationshipIndex(named: "bs"))
    }
}
