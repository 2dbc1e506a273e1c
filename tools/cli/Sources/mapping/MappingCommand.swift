import ArgumentParser
import MappingCore

/// `mapping`: the engine from the command line.
@main
struct MappingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapping",
        abstract: "Map JSON from web APIs into an object graph: check specs, import, query, serialize.",
        discussion: """
            A spec (JSON) describes entities and how payloads map onto them; a store is an SQLite file \
            that keeps the graph (it records its spec, so `query` and `serialize` need only the file).
            """,
        version: LibraryVersion.text,
        subcommands: [Check.self, Import.self, Query.self, Serialize.self, Explain.self, SpecCommand.self])
}

/// `mapping spec …`: work on specs.
struct SpecCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "spec", abstract: "Make specs.",
                                                    subcommands: [FromOpenAPI.self])
}
