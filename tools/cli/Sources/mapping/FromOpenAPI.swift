import ArgumentParser
import Foundation
import MappingCore
import MappingEngine
import MappingJSON

/// `mapping spec from-openapi api.yaml`: a draft spec from an OpenAPI 3 document (YAML or JSON).
struct FromOpenAPI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "from-openapi",
        abstract: "Draft a spec from an OpenAPI 3 document (YAML or JSON).",
        discussion: """
            Entities come from the object schemas under components/schemas and from inline objects \
            that carry an identification; schemas that describe one resource (simple-user, public-user, \
            actor…) become one entity, so a resource read through two endpoints is one object. Each \
            schema gets a mapping, each operation a named route and, where it returns an entity, a \
            response descriptor. What the draft leaves out or keeps as json is reported on standard \
            error. `mapping check` accepts what this writes.
            """)

    @Argument(help: "The OpenAPI document.") var document: String
    @Option(name: .shortAndLong, help: "Write the draft to this file instead of standard output.") var output: String?
    @Option(name: .customLong("merge"), parsing: .singleValue,
            help: "Schemas that describe one resource, comma-separated (repeatable): they become one entity.")
    var merges: [String] = []
    @Flag(name: .customLong("no-merge"), help: "Merge only what --merge names.") var noMerge = false
    @Option(help: "Only these component schemas, comma-separated (references to others become json).") var schemas: String?
    @Option(name: .customLong("paths"), parsing: .singleValue,
            help: "Only the paths that match this pattern (* matches any text; repeatable), and the schemas they return.")
    var paths: [String] = []
    @Flag(name: .customLong("quiet"), help: "Print only the summary on standard error, not the report.") var quiet = false

    func run() throws {
        let started = ContinuousClock.now
        let document = try OpenAPIDocument(path: self.document, bytes: try readBytes(self.document))
        var options = OpenAPIDraft.Options()
        options.automaticMerges = !noMerge
        options.merges = merges.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        options.schemas = schemas.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
        options.paths = paths.isEmpty ? nil : paths
        var draft = OpenAPIDraft(document, options: options)
        let text = draft.spec().text(pretty: true)
        _ = try engine { () throws(MappingError) in try CompiledSpec.load(json: text) }  // the draft must load
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: Data((text + "\n").utf8)) else {
                throw Failure("cannot write \(output)")
            }
        } else {
            print(text)
        }
        if !quiet { for line in draft.report { printError(line) } }
        let c = draft.counts
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        printError("""
            draft: \(c.entities) entities from \(c.schemas) schemas (\(c.mergedSchemas) schemas merged into \(c.merges) entities), \
            \(c.identified) with an identification; \(c.relationships) relationships, \(c.withInverse) with an inverse; \
            routes for \(c.routed) of \(c.operations) operations (\(c.entityRoutes) entity routes, \(c.skippedPaths) skipped); \
            \(c.descriptors) response descriptors; \(milliseconds) ms
            """)
    }
}
