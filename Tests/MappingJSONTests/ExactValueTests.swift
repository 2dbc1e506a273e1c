import MappingCore
@testable import MappingEngine
import MappingJSON
import XCTest
import _MappingTestSupport

/// Exact stays exact: decimals keep every digit from JSON numbers on both parsers (or the import
/// fails naming the path), predicates compare them exactly with or without an index, and whatever
/// the library writes reads back to an equal graph.
final class ExactValueTests: XCTestCase {
    private let spec = """
    {"entities": {
       "Item": {"attributes": {"id": "integer", "price": "decimal", "cost": "decimal", "score": "double",
                               "name": "string", "on": "boolean", "at": "date", "data": "json"},
                "identification": "id", "indexes": []},
       "Indexed": {"attributes": {"id": "integer", "price": {"type": "decimal", "indexed": true}}, "identification": "id"}},
     "mappings": {
       "item": {"entity": "Item", "attributes": {"id": "id", "price": "price", "cost": "cost", "score": "score",
                                                 "name": "name", "on": "on", "at": "at", "data": "data"}},
       "indexed": {"entity": "Indexed", "attributes": {"id": "id", "price": "price"}}}}
    """

    private func context(_ parser: JSONBackend) throws -> MappingContext {
        let ctx = try TestFixtures.context(spec.replacingOccurrences(of: #", "indexes": []"#, with: ""))
        try ctx.choose(parser: parser)
        return ctx
    }

    private func decimal(_ ctx: MappingContext, _ object: ObjectID, _ attribute: String = "price") throws -> String? {
        guard case (.decimal(let value)?, _) = try ctx.value(of: object, attribute: attribute) else { return nil }
        return value.description
    }

    func testADecimalFromAJSONNumberKeepsEveryDigit() throws {
        for parser in ParsedPayload.available {
            let ctx = try context(parser)
            let objects = try ctx.importJSON(mapping: "item", """
                [{"id": 1, "price": 12345678901234567890.123456789, "cost": 0.1},
                 {"id": 2, "price": 1e-400, "cost": 3.14159265358979323846264338327950288},
                 {"id": 3, "price": -98765432109876543210.5, "data": {"big": 1.00000000000000000000001, "small": 2.5}}]
                """)
            XCTAssertEqual(try decimal(ctx, objects[0]), "12345678901234567890.123456789", parser.name)
            XCTAssertEqual(try decimal(ctx, objects[0], "cost"), "0.1")
            XCTAssertEqual(try decimal(ctx, objects[1]), "0." + String(repeating: "0", count: 399) + "1")
            XCTAssertEqual(try decimal(ctx, objects[1], "cost"), "3.14159265358979323846264338327950288")
            XCTAssertEqual(try decimal(ctx, objects[2]), "-98765432109876543210.5")
            XCTAssertEqual(try ctx.value(of: objects[2], attribute: "data").0,
                           .json(.object([JSONMember("big", .decimal(try XCTUnwrap(ExactDecimal(parsing: "1.00000000000000000000001")))),
                                          JSONMember("small", .real(2.5))])), "a json value keeps long numbers as decimals")
        }
    }

    func testIntegersAndStringsFromLongNumbersAreMadeFromTheirDigits() throws {
        for parser in ParsedPayload.available {
            let ctx = try context(parser)
            // 9007199254740993.0 is 2^53 + 1: as a double it would be 2^53.
            let objects = try ctx.importJSON(mapping: "item", #"[{"id": 9007199254740993.0, "name": 0.100000000000000000001}]"#)
            XCTAssertEqual(try ctx.value(of: objects[0], attribute: "id").0, .integer(9_007_199_254_740_993), parser.name)
            XCTAssertEqual(try ctx.value(of: objects[0], attribute: "name").0, .string("0.100000000000000000001"))
            XCTAssertThrowsError(try ctx.importJSON(mapping: "item", #"[{"id": 9223372036854775808.0}]"#)) { error in
                XCTAssertEqual((error as? MappingError)?.code, .range, "beyond Int64: an error, not Int64.max")
            }
        }
    }

    func testDigitsThatCannotBeToldApartAreAnErrorNamingThePath() throws {
        for parser in ParsedPayload.available {
            let ctx = try context(parser)
            XCTAssertThrowsError(try ctx.importJSON(mapping: "item", #"[{"id": 1, "price": 0.1}, {"id": 2, "price": 0.10000000000000000001}]"#)) { error in
                let failure = error as? MappingError
                XCTAssertEqual(failure?.code, .range, parser.name)
                XCTAssertEqual(failure?.path, "$[0].price")
            }
            XCTAssertEqual(try ctx.count(of: "Item"), 0, "nothing imported")
            // A double attribute takes the rounded value as doubles do.
            let objects = try ctx.importJSON(mapping: "item", #"[{"id": 1, "score": 0.1}, {"id": 2, "score": 0.10000000000000000001}]"#)
            XCTAssertEqual(try ctx.value(of: objects[1], attribute: "score").0, .double(0.1))
        }
    }

    func testPredicatesCompareDecimalsExactlyWithAndWithoutAnIndex() throws {
        for (entity, mapping) in [("Item", "item"), ("Indexed", "indexed")] {
            let ctx = try context(.jansson)
            _ = try ctx.importJSON(mapping: mapping, #"[{"id": 1, "price": "12345678901234567.89"}, {"id": 2, "price": "12345678901234567.88"}, {"id": 3, "price": 5}]"#)
            func ids(_ predicate: String, _ arguments: [JSONValue] = []) throws -> [Int64] {
                try ctx.fetch(FetchRequest(entity: entity, predicate: predicate, arguments: arguments, sort: "id")).map { object in
                    guard case (.integer(let id)?, _) = try ctx.value(of: object, attribute: "id") else { return -1 }
                    return id
                }
            }
            XCTAssertEqual(try ids("price == 12345678901234567.89"), [1], entity)
            XCTAssertEqual(try ids("price > 12345678901234567.88"), [1], entity)
            XCTAssertEqual(try ids("price >= 12345678901234567.88"), [1, 2], entity)
            XCTAssertEqual(try ids("price < 12345678901234567.89"), [2, 3], entity)
            XCTAssertEqual(try ids("price BETWEEN {5, 12345678901234567.88}"), [2, 3], entity)
            XCTAssertEqual(try ids("price == %@", [.string("12345678901234567.880")]), [2], entity)
            XCTAssertEqual(try ids("price == 5.0"), [3], entity)
            XCTAssertEqual(try ids("price IN {5, 12345678901234567.89}"), [1, 3], entity)
        }
    }

    func testWhatTheLibraryWritesReadsBackToAnEqualGraph() throws {
        let strings = ["", "plain", "quote \" backslash \\ slash /", "nul \u{0} inside", "caf\u{E9}", "cafe\u{301}",
                       "emoji 🧪 and \u{10FFFF}", "tab\tnew\nline\u{1}"]
        let decimals = ["0", "-0.000000000000000000000000001", "98765432109876543210", "-98765432109876543210",
                        "12345678901234567890.123456789", "1" + String(repeating: "0", count: 400), "0.1", "131.30"]
        let numbers = ["0.5", "-0.000000000000000000000000001", "98765432109876543210.0", "-98765432109876543210.25",
                       "12345678901234567890.123456789", "1" + String(repeating: "0", count: 300) + ".0", "0.1", "131.30"]
        let doubles: [Double] = [0, -0.0, 0.1 + 0.2, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                 .leastNonzeroMagnitude, .leastNormalMagnitude, 1e300, 123456789.123456789]
        let dates = ["1970-01-01T00:00:00Z", "2024-02-29T23:59:59.123456Z", "0001-01-01T00:00:00Z",
                     "9999-12-31T23:59:59.999999Z", "1815-12-10T00:00:00.5Z", "-0044-03-15T12:00:00Z",
                     "+199999-12-31T23:59:59.000001Z", "-199999-01-01T00:00:00Z",
                     Timestamp(microseconds: .max).iso8601, Timestamp(microseconds: .min).iso8601]
        var items: [String] = []
        for index in 0..<24 {
            let name = strings[index % strings.count]
            let escapedName = name.unicodeScalars.map { scalar -> String in
                switch scalar {
                case "\"": return "\\\""
                case "\\": return "\\\\"
                case _ where scalar.value < 0x20: return "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                default: return String(scalar)
                }
            }.joined()
            let integer = [Int64.min, Int64.max, 0, -1][index % 4]
            items.append("""
                {"id": \(integer == 0 ? Int64(index) : integer &- Int64(index % 2)), "name": "\(escapedName)", "price": "\(decimals[index % decimals.count])",
                 "cost": \(numbers[(index + 3) % numbers.count]), "score": \(doubles[index % doubles.count]),
                 "on": \(index % 2 == 0), "at": "\(dates[index % dates.count])",
                 "data": {"n": \(numbers[(index + 1) % numbers.count]), "list": [1, 2.5, null, "x"], "deep": {"k": [\(integer)]}}}
                """)
        }
        let payload = "[" + items.joined(separator: ",") + "]"
        for parser in ParsedPayload.available {
            let first = try context(parser)
            let objects = try first.importJSON(mapping: "item", payload)
            XCTAssertEqual(objects.count, 24)
            let written = try first.serialize(mapping: "item", objects: try first.objects(of: "Item"), asList: true, options: .includeNulls)
            let second = try context(.jansson)  // the default parser reads back what was written
            _ = try second.importJSON(mapping: "item", written)
            let again = try second.serialize(mapping: "item", objects: try second.objects(of: "Item"), asList: true, options: .includeNulls)
            XCTAssertEqual(again, written, "\(parser.name): the graph read back differs")
            for (a, b) in zip(try first.objects(of: "Item"), try second.objects(of: "Item")) {
                for attribute in ["id", "name", "price", "cost", "score", "on", "at", "data"] {
                    XCTAssertEqual(try first.value(of: a, attribute: attribute).0, try second.value(of: b, attribute: attribute).0,
                                   "\(parser.name) \(attribute)")
                }
            }
        }
    }
}
