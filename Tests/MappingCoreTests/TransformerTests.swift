import XCTest
@testable import MappingCore
@testable import MappingEngine
import MappingJSON
import _MappingTestSupport

/// Built-in transformers and date patterns.
final class TransformerTests: XCTestCase {
    private func pattern(_ text: String) throws -> DatePattern { try DatePattern(text) }

    func testDatePatternsReadAndWriteI12N3() throws {
        let dayFirst = try pattern("dd/MM/yyyy")
        let march1 = try XCTUnwrap(dayFirst.parse("01/03/2012"))  // I12: dd/MM/yyyy runs first
        XCTAssertEqual(try pattern("MM/dd/yyyy").format(march1), "03/01/2012")
        XCTAssertEqual(try pattern("MM/dd/yyyy").format(Timestamp(microseconds: 0)), "01/01/1970")  // N3
        let full = try pattern("EEEE, d MMMM yyyy 'at' h:mm:ss.SSS a Z")
        let instant = try XCTUnwrap(full.parse("Thursday, 5 January 2017 at 3:04:05.678 PM +0100"))
        XCTAssertEqual(instant.iso8601, "2017-01-05T14:04:05.678Z")
        XCTAssertEqual(full.format(instant), "Thursday, 5 January 2017 at 2:04:05.678 PM +0000")
        XCTAssertEqual(try pattern("yy-M-d HH'h'").parse("69-1-2 07h")?.iso8601, "2069-01-02T07:00:00.000Z")
        XCTAssertEqual(try pattern("yyyy-MM-dd'T'HH:mm:ssXXX").parse("2009-05-11T10:39:22-04:00")?.iso8601,
                       "2009-05-11T14:39:22.000Z")
        XCTAssertEqual(try pattern("''yyyy''").format(Timestamp(microseconds: 0)), "'1970'")
        XCTAssertNil(dayFirst.parse("1/3/2012x"))
        XCTAssertNil(dayFirst.parse("31/02/2012"), "no 31 February")
        XCTAssertNil(try pattern("h a").parse("13 PM"))
        XCTAssertThrowsError(try pattern("yyyy-QQ"), "Q is not supported")
        XCTAssertThrowsError(try pattern("'open"))
    }

    func testYearPatternIsTheCalendarYearI26() throws {
        // I26 (not applicable as written): FastEasyMapping's `YYYY` on "2017" yields 2016-12-25, an
        // NSDateFormatter week-year quirk. Here `Y` reads the calendar year, as users mean it.
        XCTAssertEqual(try pattern("YYYY").parse("2017")?.iso8601, "2017-01-01T00:00:00.000Z")
    }

    func testBuiltInsForwardAndReverse() throws {
        let ctx = try TestFixtures.context("""
            {"entities": {"E": {"attributes": {"id": "integer", "at": "date", "ms": "date", "iso": "date",
                                               "link": "string", "label": "string", "when": "string"}}},
             "mappings": {"e": {"entity": "E", "attributes": {"id": "id",
                "at": {"keyPath": "at", "transformer": "epoch"},
                "ms": {"keyPath": "ms", "transformer": "epochMillis"},
                "iso": {"keyPath": "iso", "transformer": "iso8601"},
                "link": {"keyPath": "link", "transformer": "url"},
                "label": {"keyPath": "label", "transformer": {"map": {"1": "one", "2": "two"}}},
                "when": {"keyPath": "when", "transformer": "iso8601"}}}}}
            """)
        let object = try XCTUnwrap(ctx.importJSON(mapping: "e", """
            {"id": 1, "at": 1387481530, "ms": "1500000000123", "iso": "2012-03-01", "link": "mailto:a@b.c",
             "label": 2, "when": "2012-03-01T10:00:00+02:00"}
            """).first)
        XCTAssertEqual(try ctx.value(of: object, attribute: "at").0, .date(Timestamp(microseconds: 1_387_481_530_000_000)))
        XCTAssertEqual(try ctx.value(of: object, attribute: "ms").0, .date(Timestamp(microseconds: 1_500_000_000_123_000)))
        XCTAssertEqual(try ctx.value(of: object, attribute: "label").0, .string("two"))
        XCTAssertEqual(try ctx.value(of: object, attribute: "when").0, .string("2012-03-01T08:00:00.000Z"),
                       "a date into a string attribute is written in ISO form")
        XCTAssertEqual(try ctx.serialize(mapping: "e", objects: [object], asList: false),
                       #"{"id":1,"at":1387481530,"ms":1500000000123,"iso":"2012-03-01T00:00:00.000Z","link":"mailto:a@b.c","label":"2","when":"2012-03-01T08:00:00.000Z"}"#)
        for bad in [#"{"id": 2, "iso": "03/01/2012"}"#, #"{"id": 2, "iso": 0}"#, #"{"id": 2, "at": "soon"}"#,
                    #"{"id": 2, "link": "no scheme"}"#, #"{"id": 2, "label": 3}"#] {
            XCTAssertThrowsError(try ctx.importJSON(mapping: "e", bad), bad) { error in
                XCTAssertEqual((error as? MappingError)?.code, .type)
            }
        }
        XCTAssertEqual(try ctx.count(of: "E"), 1)
    }

    func testTransformerSpecErrors() {
        for (transformer, fragment) in [(#""date:yyyy-QQ""#, "not supported"), (#""map:{}""#, "{\"map\""),
                                        (#"{"map": {}}"#, "non-empty"), (#""a:b""#, "unknown transformer"), ("3", "expected")] {
            XCTAssertThrowsError(try TestFixtures.context("""
                {"entities": {"E": {"attributes": {"d": "date"}}},
                 "mappings": {"e": {"entity": "E", "attributes": {"d": {"keyPath": "d", "transformer": \(transformer)}}}}}
                """)) { error in
                let error = error as? MappingError
                XCTAssertEqual(error?.path.hasPrefix("$.mappings.e.attributes.d.transformer"), true, transformer)
                XCTAssertTrue(error?.message.contains(fragment) == true, "\(transformer): \(error?.message ?? "")")
            }
        }
    }

    func testURLCheck() {
        XCTAssertTrue(Transformer.isURL("http://restkit.org/"))
        XCTAssertTrue(Transformer.isURL("urn:isbn:0451450523"))
        XCTAssertFalse(Transformer.isURL("restkit.org"))
        XCTAssertFalse(Transformer.isURL("http://a b"))
        XCTAssertFalse(Transformer.isURL("1http://a"))
    }
}
