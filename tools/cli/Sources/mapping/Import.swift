import ArgumentParser
import Foundation
import MappingCore
import MappingEngine
import MappingJSON
import MappingLock

/// `mapping import SPEC MAPPING PAYLOAD`: maps a payload into a store (or into memory, printing the
/// graph), with a progress bar on standard error for long inputs and a summary of what changed.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a payload into a store (or print the graph it makes).",
        discussion: """
            Prints what the import changed (per entity: inserted, updated, deleted). Key paths of the \
            mapping that matched nothing and representations without their identification are \
            printed as warnings on standard error; --strict makes them errors.
            """)

    @Argument(help: "The spec (JSON).") var spec: String
    @Argument(help: "The payload (JSON; - for standard input).") var payload: String
    @OptionGroup var target: MappingTarget
    @Option(name: .long, help: "The store to import into: an SQLite file (created if missing) or a postgresql:// URI; without it the graph is printed (for --lines, the summary).")
    var store: String?
    @Option(name: .long, help: "The parser: jansson or simdjson.") var parser: String?
    @Flag(name: .long, help: "The payload is JSON Lines (one representation per line), imported in chunks.")
    var lines = false
    @Flag(name: .long, help: "Fail (and change nothing) on the warnings.") var strict = false
    @Flag(name: .customLong("warn-optional"),
          help: "Also warn about the attributes and relationships a mapping lists as \"optional\" when their key paths match nothing.")
    var warnOptional = false
    @Flag(name: .long, inversion: .prefixedNo, help: "Show a progress bar on standard error (default: for inputs over 1 MB on a terminal).")
    var progress: Bool?

    func validate() throws {
        if lines && target.mapping == nil { throw ValidationError("--lines needs --mapping") }
    }

    func run() throws {
        let (compiled, specText) = try loadSpec(spec)
        // A store file this import creates is removed again if the import fails: a failed command
        // leaves no empty store behind.
        let createdStore = store.flatMap { !MappingContext.isServerLocation($0) && access($0, F_OK) != 0 ? $0 : nil }
        func discardCreatedStore(_ context: MappingContext?) {
            guard let createdStore else { return }
            context?.close()
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(createdStore + suffix) }
        }
        let context: MappingContext
        do {
            if let store {
                context = try engine(storeLabel(store)) { () throws(MappingError) in try MappingContext.open(specJSON: specText, at: store) }
            } else {
                context = try engine(spec) { () throws(MappingError) in try MappingContext(spec: compiled) }
            }
        } catch {
            discardCreatedStore(nil)
            throw error
        }
        do {
            if let choice = try parserChoice(named: parser) { try engine { () throws(MappingError) in try context.choose(parser: choice) } }
        } catch {
            discardCreatedStore(context)
            throw error
        }
        let bytes: [UInt8]
        do {
            bytes = try readBytes(payload)
        } catch {
            discardCreatedStore(context)
            throw error
        }
        let tally = Tally()
        _ = context.addObserver { changes in tally.add(changes) }
        var options = ImportOptions()
        options.audit = ImportAudit(warnsAboutOptional: warnOptional)
        options.strict = strict
        let bar = ProgressBar(enabled: progress ?? (bytes.count > 1 << 20 && isatty(2) != 0))
        if bar.enabled { options.onProgress = { done, known in bar.show(done, known) } }
        let objects: [ObjectID]
        let mapped: Int
        do {
            defer { bar.finish() }
            (objects, mapped) = try bytes.withUnsafeBytes { buffer in
                if lines, let mapping = target.mapping {
                    return ([], try engine(payload) { () throws(MappingError) in
                        try context.importChunked(mapping: mapping, buffer, format: .lines, chunkSize: 10_000, options: options)
                    })
                }
                let objects = try target.map(buffer, into: context, options: options, file: payload)
                return (objects, objects.count)
            }
        } catch {
            printWarnings(options.audit)
            discardCreatedStore(context)
            throw error
        }
        printWarnings(options.audit)
        if store == nil && !lines {
            // Printed through the mapping applied, or for a response the first of the objects' entity.
            let entity = try objects.first.map { object in try engine { () throws(MappingError) in try context.entityName(of: object) } }
            let name = target.mapping ?? compiled.mappings.first { compiled.model.entities[$0.entity].name == entity }?.name
            guard let name else { return print("[]") }
            print(try engine { () throws(MappingError) in
                try context.serialize(mapping: name, objects: objects, asList: true, options: [.pretty])
            })
        } else {
            print("mapped \(mapped) top-level representation\(mapped == 1 ? "" : "s"); " + tally.summary)
        }
    }

    private func printWarnings(_ audit: ImportAudit?) {
        guard !strict else { return }  // a strict import's error lists them
        for warning in audit?.warnings ?? [] { printError("warning: " + warning.message) }
    }
}

/// What a payload is mapped with: a named mapping, or the response descriptors of a request.
struct MappingTarget: ParsableArguments {
    @Option(name: .long, help: "The mapping to apply.") var mapping: String?
    @Option(name: .long, help: "Map the payload as the 200 response to this request, by the spec's response descriptors: 'GET /pets'.")
    var response: String?

    func validate() throws {
        guard (mapping == nil) != (response == nil) else { throw ValidationError("give either --mapping or --response") }
        if let response { _ = try Self.request(response) }
    }

    /// Maps the payload, all or nothing.
    func map(_ payload: UnsafeRawBufferPointer, into context: MappingContext, options: ImportOptions, file: String) throws -> [ObjectID] {
        let request = try response.map(Self.request)
        return try engine(file) { () throws(MappingError) in
            if let request { return try context.mapResponse(request, body: payload, options: options) }
            return try context.importJSON(mapping: mapping ?? "", payload, options: options)
        }
    }

    /// `GET /pets` as the response of that request (status 200, on a local base URL).
    static func request(_ text: String) throws -> HTTPResponse {
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, let method = HTTPMethods(name: parts[0]), parts[1].hasPrefix("/") else {
            throw ValidationError("--response takes a method and a path: 'GET /pets'")
        }
        let base = "http://localhost"
        return HTTPResponse(method: method, url: base + parts[1], status: 200, baseURL: base)
    }
}

/// What the commits of an import changed, per entity.
final class Tally: Sendable {
    private let counts = Locked([String: (inserted: Int, updated: Int, deleted: Int)]())

    func add(_ changes: ChangeSet) {
        counts.withLock { counts in
            for change in changes.inserted { counts[change.entity, default: (0, 0, 0)].inserted += 1 }
            for change in changes.updated { counts[change.entity, default: (0, 0, 0)].updated += 1 }
            for change in changes.deleted { counts[change.entity, default: (0, 0, 0)].deleted += 1 }
        }
    }

    /// `3 inserted (Person 2, Phone 1), 1 updated (Company 1), 0 deleted`.
    var summary: String {
        counts.withLock { counts in
            func part(_ name: String, _ count: ((inserted: Int, updated: Int, deleted: Int)) -> Int) -> String {
                let per = counts.keys.sorted().compactMap { entity in counts[entity].map(count).flatMap { $0 > 0 ? "\(entity) \($0)" : nil } }
                let total = counts.values.map(count).reduce(0, +)
                return "\(total) \(name)" + (per.isEmpty ? "" : " (" + per.joined(separator: ", ") + ")")
            }
            return [part("inserted", \.inserted), part("updated", \.updated), part("deleted", \.deleted)].joined(separator: ", ")
        }
    }
}

/// A one-line progress bar on standard error, redrawn in place.
final class ProgressBar: Sendable {
    let enabled: Bool
    private let shown = Locked(false)

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ done: Int, _ known: Int) {
        let width = 30
        let filled = known > 0 ? min(width, done * width / max(known, 1)) : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        printError("\r[\(bar)] \(done) / \(known) representations", terminator: "")
        shown.withLock { $0 = true }
    }

    func finish() {
        if shown.withLock({ $0 }) { printError("") }
    }
}
