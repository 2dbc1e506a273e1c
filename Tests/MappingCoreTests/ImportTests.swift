import XCTest
import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

final class ImportTests: XCTestCase {
    private func context() throws -> MappingContext {
        try TestFixtures.context(TestFixtures.peopleSpec)
    }

    func testOneObjectPerIdentityWithTheLastValues() throws {
        let ctx = try context()
        let top = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        XCTAssertEqual(top.count, 3)
        XCTAssertEqual(top[0], top[2], "\"1\" and 1 are one identity")
        XCTAssertEqual(try ctx.count(of: "Person"), 2)
        XCTAssertEqual(try ctx.count(of: "Company"), 2)
        XCTAssertEqual(try ctx.count(of: "Phone"), 3)
        XCTAssertEqual(try ctx.value(of: top[0], attribute: "name").0, .string("Ada Lovelace"))
        XCTAssertEqual(try ctx.value(of: top[0], attribute: "age").0, .integer(36), "kept: missing key")
        XCTAssertEqual(try ctx.value(of: top[0], attribute: "city").0, .string("London"))
        XCTAssertEqual(try ctx.value(of: top[0], attribute: "weight").0, .decimal(ExactDecimal(parsing: "61.25")!))
        XCTAssertEqual(try ctx.value(of: top[0], attribute: "active").0, .boolean(true))
        XCTAssertEqual(try ctx.value(of: top[1], attribute: "born").0, .date(Timestamp(microseconds: 1_000_000)))
        let company10 = try XCTUnwrap(ctx.object(of: "Company", identity: .integer(10)))
        XCTAssertEqual(try ctx.value(of: company10, attribute: "name").0, .string("Analytical Engines Ltd"))
        // Ada moved to company 11; the inverse follows.
        XCTAssertEqual(try ctx.relatedObjects(of: company10, relationship: "employees"), [top[1]])
        let company11 = try XCTUnwrap(ctx.relatedObject(of: top[0], relationship: "company"))
        XCTAssertEqual(try ctx.relatedObjects(of: company11, relationship: "employees"), [top[0]])
        let phones = try ctx.relatedObjects(of: top[0], relationship: "phones")
        XCTAssertEqual(phones.count, 2, "the phones key was missing the second time: left as it was")
        XCTAssertEqual(try ctx.relatedObject(of: phones[1], relationship: "owner"), top[0])
    }

    func testReimportUpdatesInPlace() throws {
        let ctx = try context()
        let first = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        let second = try ctx.importJSON(mapping: "person", """
            {"data": {"people": [{"id": 2, "name": "Grace Hopper", "phones": []}]}}
            """)
        XCTAssertEqual(second, [first[1]])
        XCTAssertEqual(try ctx.count(of: "Person"), 2)
        XCTAssertEqual(try ctx.value(of: first[1], attribute: "name").0, .string("Grace Hopper"))
        XCTAssertEqual(try ctx.relatedObjects(of: first[1], relationship: "phones"), [])
        let phone = try XCTUnwrap(ctx.object(of: "Phone", identity: .string("+1-555")))
        XCTAssertNil(try ctx.relatedObject(of: phone, relationship: "owner"), "inverse cleared")
        XCTAssertEqual(try ctx.count(of: "Phone"), 3, "assign keeps the old phone in the graph")
    }

    func testNullClearsAValue() throws {
        let ctx = try context()
        let people = try ctx.importJSON(mapping: "person", #"{"data":{"people":[{"id":5,"name":"X","company":{"id":1}}]}}"#)
        _ = try ctx.importJSON(mapping: "person", #"{"data":{"people":[{"id":5,"name":null,"company":null}]}}"#)
        XCTAssertNil(try ctx.value(of: people[0], attribute: "name").0)
        XCTAssertNil(try ctx.relatedObject(of: people[0], relationship: "company"))
    }

    func testWrongTypeFailsWithPathAndLeavesTheGraphAsItWas() throws {
        let ctx = try context()
        let people = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload)
        let before = try ctx.serialize(mapping: "person", objects: try ctx.objects(of: "Person"), asList: true)
        XCTAssertThrowsError(try ctx.importJSON(mapping: "person", """
            {"data": {"people": [
              {"id": 1, "name": "changed", "company": {"id": 99, "name": "new"}},
              {"id": 3, "name": "new person"},
              {"id": 2, "age": "abc"}
            ]}}
            """)) { error in
            let error = error as? MappingError
            XCTAssertEqual(error?.code, .type)
            XCTAssertEqual(error?.path, "$.data.people[2].age")
            XCTAssertEqual(error?.attribute, "Person.age")
        }
        XCTAssertEqual(try ctx.count(of: "Person"), 2)
        XCTAssertEqual(try ctx.count(of: "Company"), 2)
        XCTAssertEqual(try ctx.value(of: people[0], attribute: "name").0, .string("Ada Lovelace"))
        XCTAssertNil(try ctx.object(of: "Company", identity: .integer(99)))
        let after = try ctx.serialize(mapping: "person", objects: try ctx.objects(of: "Person"), asList: true)
        XCTAssertEqual(before, after)
    }

    func testMalformedJSONReportsLineAndColumn() throws {
        let ctx = try context()
        XCTAssertThrowsError(try ctx.importJSON(mapping: "person", "{\"data\":\n  {\"people\": [1,]}}")) { error in
            let error = error as? MappingError
            XCTAssertEqual(error?.code, .parse)
            XCTAssertEqual(error?.line, 2)
            XCTAssertEqual(error?.column, 17, "the unexpected ]")
        }
    }

    func testSerializationRebuildsTheInputShape() throws {
        let ctx = try context()
        let people = try ctx.importJSON(mapping: "person", """
            {"data": {"people": [{"id": 7, "name": "Lin", "age": 40, "score": 0.1, "weight": 131.3, "active": false,
              "born": "2009-05-11T14:39:22.777-04:00", "tags": [1, "two"], "address": {"city": "Oslo"},
              "company": {"id": 3, "name": "C"}, "phones": [{"number": "1", "kind": "k"}]}]}}
            """)
        let text = try ctx.serialize(mapping: "person", objects: people, asList: true)
        XCTAssertEqual(text, #"{"data":{"people":[{"id":7,"name":"Lin","age":40,"score":0.1,"weight":131.3,"active":false,"born":"2009-05-11T18:39:22.777Z","tags":[1,"two"],"address":{"city":"Oslo"},"company":{"id":3,"name":"C"},"phones":[{"number":"1","kind":"k"}]}]}}"#)
    }
}
