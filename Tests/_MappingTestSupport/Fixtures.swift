/// Shared specs and payloads for the Swift test targets: the Person/Company/Phone scenario that
/// the C and Python suites also use.
public enum TestFixtures {
    public static let peopleSpec = """
    {
      "entities": {
        "Person": {
          "attributes": {
            "id": "integer", "name": "string", "age": "integer", "score": "double",
            "weight": "decimal", "active": "boolean", "born": "date", "extra": "json",
            "city": "string"
          },
          "identification": ["id"],
          "relationships": {
            "company": {"entity": "Company", "inverse": "employees"},
            "phones": {"entity": "Phone", "toMany": true, "inverse": "owner"}
          }
        },
        "Company": {
          "attributes": {"id": "integer", "name": "string"},
          "relationships": {"employees": {"entity": "Person", "toMany": true, "inverse": "company"}}
        },
        "Phone": {
          "attributes": {"number": "string", "kind": "string"},
          "identification": "number",
          "relationships": {"owner": {"entity": "Person", "inverse": "phones"}}
        }
      },
      "mappings": {
        "person": {
          "entity": "Person",
          "rootPath": "data.people",
          "attributes": {
            "id": "id", "name": "name", "age": "age", "score": "score", "weight": "weight",
            "active": "active", "born": "born", "extra": "extra", "city": "address.city"
          },
          "relationships": {
            "company": {"keyPath": "company", "mapping": "company"},
            "phones": {"keyPath": "phones", "mapping": "phone"}
          }
        },
        "company": {"entity": "Company", "attributes": {"id": "id", "name": "name"}},
        "phone": {"entity": "Phone", "attributes": {"number": "number", "kind": "kind"}}
      }
    }
    """

    public static let peoplePayload = """
    {"data": {"people": [
      {"id": 1, "name": "Ada", "age": "36", "score": 9.5, "weight": "61.25", "active": "yes",
       "born": "1815-12-10T00:00:00Z", "extra": {"tags": ["math", "engines"]},
       "address": {"city": "London"},
       "company": {"id": 10, "name": "Analytical"},
       "phones": [{"number": "+44-1", "kind": "home"}, {"number": "+44-2", "kind": "work"}]},
      {"id": 2, "name": "Grace", "age": 85, "active": true, "born": 1,
       "company": {"id": 10, "name": "Analytical Engines Ltd"},
       "phones": [{"number": "+1-555", "kind": "work"}]},
      {"id": "1", "name": "Ada Lovelace", "company": {"id": 11, "name": "Difference"}}
    ]}}
    """
}

import Foundation
import XCTest
import MappingCore
import MappingJSON

extension TestFixtures {
    /// The repository's `Tests/fixtures` folder.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fixtures")

    /// The text of a file below `Tests/fixtures` (e.g. `reference/user.json`).
    public static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// A context for a spec written inline in a test. `MAPPING_TEST_PARSER=simdjson` in the
    /// environment runs every test's imports through the simdjson backend (`make test` runs the
    /// suite once per parser), so both backends must pass the same assertions. The store's
    /// invariants are checked after every call on it: a broken one fails the running test.
    public static func context(_ spec: String) throws -> MappingContext {
        let context = try MappingContext(specJSON: spec, onInvariantViolation: failInvariants)
        try chooseTestParser(context)
        return context
    }

    /// A context for an already compiled spec, with the same invariant checking.
    public static func context(compiled spec: CompiledSpec) throws -> MappingContext {
        let context = try MappingContext(spec: spec, onInvariantViolation: failInvariants)
        try chooseTestParser(context)
        return context
    }

    /// Fails the running test with what the store's invariant check found broken.
    public static let failInvariants: @Sendable ([String]) -> Void = { broken in
        XCTFail("store invariants broken:\n" + broken.joined(separator: "\n"))
    }

    private static func chooseTestParser(_ context: MappingContext) throws {
        if let name = ProcessInfo.processInfo.environment["MAPPING_TEST_PARSER"] {
            guard let parser = JSONBackend.allCases.first(where: { $0.name == name }) else {
                throw MappingError(.misuse, "MAPPING_TEST_PARSER=\(name) names no parser")
            }
            try context.choose(parser: parser)
        }
    }

}
