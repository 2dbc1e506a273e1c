import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// KVCMapping's relationship cases in our spec: a relationship referring to
/// objects by a value of theirs is a relationship mapping without a nested mapping.
final class KVCMappingTests: XCTestCase {
    private let spec = """
        {"entities": {
           "A": {"attributes": {"attributeInA": "string"}, "identification": "attributeInA",
                 "relationships": {"relationToB": {"entity": "B", "inverse": "relationToA"},
                                   "manyB": {"entity": "B", "toMany": true, "inverse": "oneA"}}},
           "B": {"attributes": {"attributeInB": "string"}, "identification": "attributeInB",
                 "relationships": {"relationToA": {"entity": "A", "inverse": "relationToB"},
                                   "oneA": {"entity": "A", "inverse": "manyB"},
                                   "manyA": {"entity": "A", "toMany": true}}}},
         "mappings": {
           "a": {"entity": "A", "attributes": {"attributeInA": "value"}},
           "b": {"entity": "B", "attributes": {"attributeInB": "name"},
                 "relationships": {"relationToA": {"keyPath": "a", "weak": true}, "manyA": {"keyPath": "as", "weak": true}}},
           "bCreating": {"entity": "B", "attributes": {"attributeInB": "name"}, "relationships": {"relationToA": {"keyPath": "a"}}},
           "aWithSubobjects": {"entity": "A", "attributes": {"attributeInA": "value"},
                               "relationships": {"relationToB": {"keyPath": "b", "mapping": "bSub"},
                                                 "manyB": {"keyPath": "bs", "mapping": "bSub"}}},
           "bSub": {"entity": "B", "attributes": {"attributeInB": "attr"}}}}
        """

    func testSetRelationshipByValueQ1Q5AndTheInverse() throws {
        let ctx = try TestFixtures.context(spec)
        let a = try XCTUnwrap(ctx.importJSON(mapping: "a", #"{"value": "value1"}"#).first)
        let b = try XCTUnwrap(ctx.importJSON(mapping: "b", #"{"name": "b", "a": "value1"}"#).first)
        XCTAssertEqual(try ctx.relatedObject(of: b, relationship: "relationToA"), a)
        XCTAssertEqual(try ctx.relatedObject(of: a, relationship: "relationToB"), b, "the inverse is set")
    }

    func testToManyByValuesReplacesQ2() throws {
        let ctx = try TestFixtures.context(spec)
        let a = try ctx.importJSON(mapping: "a", #"[{"value": "value1"}, {"value": "value2"}]"#)
        let b = try XCTUnwrap(ctx.importJSON(mapping: "b", #"{"name": "b", "as": ["value1", "value2"]}"#).first)
        XCTAssertEqual(try ctx.relatedObjects(of: b, relationship: "manyA"), a)
        _ = try ctx.importJSON(mapping: "b", #"{"name": "b", "as": ["value1"]}"#)
        XCTAssertEqual(try ctx.relatedObjects(of: b, relationship: "manyA"), [a[0]])
        _ = try ctx.importJSON(mapping: "b", #"{"name": "b", "as": ["value2"]}"#)
        XCTAssertEqual(try ctx.relatedObjects(of: b, relationship: "manyA"), [a[1]], "replaced, not added")
    }

    func testNonexistingObjectIsNilOrCreatedQ3Q4() throws {
        let ctx = try TestFixtures.context(spec)
        let b = try XCTUnwrap(ctx.importJSON(mapping: "b", #"{"name": "b", "a": "value2"}"#).first)
        XCTAssertNil(try ctx.relatedObject(of: b, relationship: "relationToA"), "weak: no match, nil")
        XCTAssertEqual(try ctx.count(of: "A"), 0)
        _ = try ctx.importJSON(mapping: "bCreating", #"{"name": "b", "a": "value2"}"#)
        let created = try XCTUnwrap(ctx.object(of: "A", identity: .string("value2")), "Q4: created and registered")
        XCTAssertEqual(try ctx.relatedObject(of: b, relationship: "relationToA"), created)
        XCTAssertEqual(try ctx.relatedObject(of: created, relationship: "relationToB"), b)
    }

    func testSubobjectMappingsQ6() throws {
        let ctx = try TestFixtures.context(spec)
        let a = try XCTUnwrap(ctx.importJSON(mapping: "aWithSubobjects", #"{"value": "a", "b": {"attr": "VALUE"}}"#).first)
        let b = try XCTUnwrap(ctx.relatedObject(of: a, relationship: "relationToB"))
        XCTAssertEqual(try ctx.value(of: b, attribute: "attributeInB").0, .string("VALUE"))
        _ = try ctx.importJSON(mapping: "aWithSubobjects", #"{"value": "a", "bs": [{"attr": "VALUE_1"}, {"attr": "VALUE_2"}]}"#)
        XCTAssertEqual(try ctx.relatedObjects(of: a, relationship: "manyB").count, 2)
        _ = try ctx.importJSON(mapping: "aWithSubobjects", #"{"value": "a2", "b": {"attr": "VALUE"}}"#)
        XCTAssertEqual(try ctx.count(of: "B"), 3, "the existing B \"VALUE\" is reused")
    }
}
