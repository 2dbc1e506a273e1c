import ArgumentParser
import MappingCore
import MappingEngine

/// `mapping serialize STORE MAPPING`: the objects of a store written out through a mapping.
struct Serialize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a store's objects out as JSON through a mapping.")

    @Argument(help: "The store (an SQLite file written by libmapping).") var store: String
    @Argument(help: "The mapping to write the objects with.") var mapping: String
    @Argument(help: "Only the objects matching this predicate.") var predicate: String?
    @Option(name: .long, parsing: .unconditional, help: "Sort keys, comma-separated; - for descending.") var sort: String?
    @Flag(name: .long, help: "Write nulls for unset values.") var includeNulls = false
    @Flag(name: .long, help: "One line instead of indented JSON.") var compact = false

    func run() throws {
        let context = try openStore(store)
        try engine { () throws(MappingError) in try context.checkMapping(mapping) }  // unknown: the engine's hint
        guard let plan = context.spec.mappings.first(where: { $0.name == mapping }) else {
            throw Failure("\"\(mapping)\" is a dynamic mapping: serialize with one of the mappings it chooses from")
        }
        let entity = context.model.entities[plan.entity].name
        let objects = try engine { () throws(MappingError) in
            try context.fetch(FetchRequest(entity: entity, predicate: predicate, sort: sort))
        }
        var options: SerializeOptions = compact ? [] : [.pretty]
        if includeNulls { options.insert(.includeNulls) }
        print(try engine { () throws(MappingError) in try context.serialize(mapping: mapping, objects: objects, asList: true, options: options) })
    }
}
