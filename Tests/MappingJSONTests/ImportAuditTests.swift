import MappingCore
@testable import MappingEngine
import MappingJSON
import XCTest
import _MappingTestSupport

/// The mistakes that pass in silence, made loud: an audited import reports key paths that matched
/// nothing in the whole payload and representations without their identification; a strict import
/// fails on them and changes nothing.
final class ImportAuditTests: XCTestCase {
    /// The people spec with Person.city read from a misspelled key path.
    private var misspelled: String {
        TestFixtures.peopleSpec.replacingOccurrences(of: "\"city\": \"address.city\"", with: "\"city\": \"adress.city\"")
    }

    func testACleanImportCountsEveryKeyPathAndWarnsOfNothing() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        var options = ImportOptions()
        options.audit = ImportAudit()
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload, options: options)
        let audit = try XCTUnwrap(options.audit)
        XCTAssertEqual(audit.representations, ["person": 3, "company": 3, "phone": 3])
        let city = try XCTUnwrap(audit.keyPaths.first { $0.element == "Person.city" })
        XCTAssertEqual(city.keyPath, "address.city")
        XCTAssertEqual(city.matches, 1, "only Ada has an address")
        XCTAssertEqual(city.representations, 3)
        XCTAssertEqual(audit.keyPaths.first { $0.element == "Person.phones" }?.matches, 2)
        XCTAssertEqual(audit.keyPaths.first { $0.element == "Person.phones" }?.isRelationship, true)
        XCTAssertEqual(audit.warnings, [])
    }

    func testAMisspelledKeyPathIsAWarningAndInStrictModeAnErrorThatChangesNothing() throws {
        let ctx = try TestFixtures.context(misspelled)
        var options = ImportOptions()
        options.audit = ImportAudit()
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload, options: options)
        let warnings = try XCTUnwrap(options.audit).warnings
        XCTAssertEqual(warnings.count, 1)
        let warning = try XCTUnwrap(warnings.first)
        XCTAssertEqual(warning.kind, .unmatchedKeyPath)
        XCTAssertEqual(warning.mapping, "person")
        XCTAssertEqual(warning.element, "Person.city")
        XCTAssertEqual(warning.place, "adress.city")
        XCTAssertEqual(warning.count, 3)
        XCTAssertTrue(warnings[0].message.contains("key path \"adress.city\" of mapping \"person\" (Person.city) matched nothing in 3 representations"),
                      warnings[0].message)

        let strictContext = try TestFixtures.context(misspelled)
        var strict = ImportOptions()
        strict.strict = true
        XCTAssertThrowsError(try strictContext.importJSON(mapping: "person", TestFixtures.peoplePayload, options: strict)) { error in
            let error = error as? MappingError
            XCTAssertEqual(error?.code, .mapping)
            XCTAssertEqual(error?.attribute, "Person.city")
            XCTAssertTrue(error?.message.hasPrefix("strict import: key path \"adress.city\"") == true, "\(String(describing: error))")
        }
        XCTAssertEqual(try strictContext.count(of: "Person"), 0, "the strict import changed nothing")
    }

    func testAKeyPathTheMappingCallsOptionalWarnsOnlyWhenAsked() throws {
        let optional = misspelled.replacingOccurrences(of: "\"entity\": \"Person\",\n", with: "\"entity\": \"Person\", \"optional\": [\"city\"],\n")
        XCTAssertNotEqual(optional, misspelled)
        let ctx = try TestFixtures.context(optional)
        var options = ImportOptions()
        options.audit = ImportAudit()
        options.strict = true
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload, options: options)
        let audit = try XCTUnwrap(options.audit)
        XCTAssertEqual(audit.warnings, [])
        XCTAssertEqual(audit.keyPaths.first { $0.element == "Person.city" }?.isOptional, true)
        XCTAssertEqual(audit.keyPaths.first { $0.element == "Person.city" }?.matches, 0)
        var asked = ImportOptions()
        asked.audit = ImportAudit(warnsAboutOptional: true)
        _ = try ctx.importJSON(mapping: "person", TestFixtures.peoplePayload, options: asked)
        XCTAssertEqual(try XCTUnwrap(asked.audit).warnings.map(\.element), ["Person.city"])
    }

    func testRepresentationsWithoutTheirIdentificationAreCountedWithTheFirstPath() throws {
        let ctx = try TestFixtures.context(TestFixtures.peopleSpec)
        var options = ImportOptions()
        options.audit = ImportAudit()
        let payload = #"{"data": {"people": [{"id": 5, "name": "A", "phones": [{"kind": "home"}, {"number": "+1"}, {"number": null}]}, {"name": "B"}]}}"#
        _ = try ctx.importJSON(mapping: "person", payload, options: options)
        let missing = try XCTUnwrap(options.audit).missingIdentification
        XCTAssertEqual(missing.map(\.mapping), ["person", "phone"])
        XCTAssertEqual(missing.map(\.count), [1, 2])
        XCTAssertEqual(missing.map(\.firstPath), ["$.data.people[1]", "$.data.people[0].phones[0]"])
        XCTAssertEqual(missing.last?.identification, ["Phone.number"])
        XCTAssertEqual(try ctx.count(of: "Phone"), 3, "each became an object with no identity, as before")
    }

    func testAChunkedImportIsJudgedOnTheWholeInput() throws {
        let spec = """
            {"entities": {"Item": {"attributes": {"id": "integer", "name": "string", "city": "string"}}},
             "mappings": {"item": {"entity": "Item", "attributes": {"id": "id", "name": "name", "city": "address.city"}}}}
            """
        // The address appears only in the last chunk: no chunk alone decides a key path is unmatched.
        let items = (1...5).map { #"{"id": \#($0), "name": "P\#($0)"}"# } + [#"{"id": 6, "address": {"city": "Oslo"}}"#]
        let input = Array(("[" + items.joined(separator: ",") + "]").utf8)
        let ctx = try TestFixtures.context(spec)
        var strict = ImportOptions()
        strict.strict = true
        strict.audit = ImportAudit()
        let count = try input.withUnsafeBytes { bytes in try ctx.importChunked(mapping: "item", bytes, format: .array, chunkSize: 2, options: strict) }
        XCTAssertEqual(count, 6)
        XCTAssertEqual(strict.audit?.keyPaths.first { $0.element == "Item.city" }?.matches, 1)
        XCTAssertEqual(strict.audit?.keyPaths.first { $0.element == "Item.name" }?.matches, 5)
        XCTAssertEqual(strict.audit?.representations, ["item": 6])

        let other = try TestFixtures.context(spec)
        let withoutCity = Array(("[" + items.dropLast().joined(separator: ",") + "]").utf8)
        XCTAssertThrowsError(try withoutCity.withUnsafeBytes { bytes in
            try other.importChunked(mapping: "item", bytes, format: .array, chunkSize: 2, options: strict)
        }) { error in
            XCTAssertEqual((error as? MappingError)?.code, .mapping)
            XCTAssertEqual((error as? MappingError)?.attribute, "Item.city")
        }
        XCTAssertEqual(try other.count(of: "Item"), 0, "a failed strict chunked import changes nothing")

        // Inside the caller's transaction, it fails that transaction as any failing call does.
        let inside = try TestFixtures.context(spec)
        try inside.begin()
        _ = try inside.importJSON(mapping: "item", #"[{"id": 99, "name": "before"}]"#)
        XCTAssertThrowsError(try withoutCity.withUnsafeBytes { bytes in
            try inside.importChunked(mapping: "item", bytes, format: .array, chunkSize: 2, options: strict)
        }) { error in
            XCTAssertTrue((error as? MappingError)?.message.hasSuffix("(the open transaction was rolled back)") == true, "\(error)")
        }
        XCTAssertEqual(try inside.count(of: "Item"), 0, "the whole transaction was rolled back")
        XCTAssertThrowsError(try inside.commit(), "the failed transaction commits nothing") { error in
            XCTAssertTrue((error as? MappingError)?.message.hasPrefix("nothing was committed") == true, "\(error)")
        }
        XCTAssertThrowsError(try inside.commit(), "and is ended by that commit")
    }
}
