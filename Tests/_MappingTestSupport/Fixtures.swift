import Foundation
import MappingCore
import MappingEngine
import MappingJSON
import XCTest

/// Shared specs and payloads for the Swift test targets: the Person/Company/Phone scenario that
/// the C and Python suites also use.
public enum TestFixtures {
    /// The people scenario every suite shares — Swift, C and Python read the same two files in
    /// `Tests/fixtures`, so the scenario cannot drift between them. Person (typed attributes of
    /// every kind, a key path into `address`), Company (uniqued, with inverse employees) and Phone
    /// (identified by number, an ordered to-many of Person).
    public static let peopleSpec = fixture("people.spec.json")
    /// Three people, two of them the same person (id 1 and "1"), two companies, three phones.
    public static let peoplePayload = fixture("people.json")

    /// A missing fixture makes every test that uses it fail on the empty spec, visibly.
    private static func fixture(_ name: String) -> String { (try? text(name)) ?? "" }

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
