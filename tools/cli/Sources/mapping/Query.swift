import ArgumentParser
import Foundation
import MappingCore
import MappingEngine

/// `mapping query STORE ENTITY [PREDICATE]`: the objects of a store that match, as a table or JSON.
struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Query a store: mapping query app.db Person 'age > 30' --sort -name --limit 10")

    @Argument(help: "The store (an SQLite file written by libmapping).") var store: String
    @Argument(help: "The entity (its sub-entities too).") var entity: String
    @Argument(help: "A predicate, e.g. 'age > 30 AND name BEGINSWITH \"A\"'.") var predicate: String?
    @Option(name: .long, parsing: .unconditional, help: "Sort keys, comma-separated; - for descending (e.g. -age,name).")
    var sort: String?
    @Option(name: .long, help: "At most this many objects.") var limit: Int?
    @Option(name: .long, help: "Skip this many objects first.") var offset: Int = 0
    @Flag(name: .long, help: "Print JSON (an array of objects) instead of a table.") var json = false
    @Option(name: .long, help: "The columns, comma-separated: attributes, or key paths through to-one relationships (name,company.name).")
    var columns: String?
    @Flag(name: .long, help: "Print every column in full even on a terminal (by default a table fits the terminal's width).")
    var wide = false

    func run() throws {
        let context = try openStore(store)
        guard limit.map({ $0 >= 0 }) ?? true, offset >= 0 else { throw Failure("--limit and --offset take numbers of 0 or more") }
        guard let declared = context.model.entity(named: entity) else {
            throw Failure("unknown entity \(entity)" + NameHint.hint(for: entity, among: context.model.entities.map(\.name), kind: "entities"))
        }
        if let columns, columns.split(separator: ",").isEmpty { throw Failure("--columns names no column: give attributes or key paths, comma-separated") }
        let paths = try columns.map { try $0.split(separator: ",").map { try ColumnPath(String($0).trimmingCharacters(in: .whitespaces), from: declared, in: context.model) } }
            ?? declared.attributes.map { ColumnPath(attribute: $0.name) }
        let request = FetchRequest(entity: entity, predicate: predicate, sort: sort, offset: offset, limit: limit)
        let objects = try engine { () throws(MappingError) in try context.fetch(request) }
        var rows: [[AttributeValue?]] = []
        for object in objects {
            rows.append(try paths.map { path in try engine { () throws(MappingError) in try path.value(of: object, in: context) } })
        }
        let names = paths.map(\.text)
        if json {
            let array = JSONValue.array(rows.map { row in
                .object(zip(names, row).map { JSONMember($0, $1?.jsonValue ?? .null) })
            })
            print(array.text(pretty: true))
        } else {
            let width = wide ? nil : terminalWidth()
            print(table(names, rows.map { $0.map { $0?.cell ?? "null" } }, width: width))
            print("(\(objects.count) \(objects.count == 1 ? "object" : "objects"))")
        }
    }
}

/// A column of `query`: an attribute, or a key path through to-one relationships to one
/// (`company.name`), checked against the model before anything is read.
struct ColumnPath {
    let text: String
    private let hops: [String]
    private let attribute: String

    init(attribute: String) {
        text = attribute
        hops = []
        self.attribute = attribute
    }

    init(_ text: String, from entity: Entity, in model: Model) throws {
        self.text = text
        var steps = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let last = steps.popLast(), !last.isEmpty, !steps.contains("") else { throw Failure("--columns: \"\(text)\" is not a key path") }
        var current = entity
        for step in steps {
            guard let relationship = current.relationships.first(where: { $0.name == step }), !relationship.toMany,
                  model.entities.indices.contains(relationship.destination) else {
                let toOnes = current.relationships.filter { !$0.toMany }.map(\.name)
                throw Failure("--columns: \(current.name) has no to-one relationship \"\(step)\" (in \(text))"
                              + NameHint.hint(for: step, among: toOnes, kind: "to-one relationships"))
            }
            current = model.entities[relationship.destination]
        }
        let attributes = current.attributes.map(\.name)
        guard attributes.contains(last) else {
            throw Failure("--columns: \(current.name) has no attribute \"\(last)\" (in \(text))" + NameHint.hint(for: last, among: attributes, kind: "attributes"))
        }
        hops = steps
        attribute = last
    }

    /// The value at the end of the path, or nil when a hop leads nowhere.
    func value(of object: ObjectID, in context: MappingContext) throws(MappingError) -> AttributeValue? {
        var current = object
        for hop in hops {
            guard let next = try context.relatedObject(of: current, relationship: hop) else { return nil }
            current = next
        }
        return try context.value(of: current, attribute: attribute).0
    }
}
