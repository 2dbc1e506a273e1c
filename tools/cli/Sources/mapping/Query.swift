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

    func run() throws {
        let context = try openStore(store)
        guard limit.map({ $0 >= 0 }) ?? true, offset >= 0 else { throw Failure("--limit and --offset take numbers of 0 or more") }
        let request = FetchRequest(entity: entity, predicate: predicate, sort: sort, offset: offset, limit: limit)
        let objects = try engine { () throws(MappingError) in try context.fetch(request) }
        guard let declared = context.model.entity(named: entity) else { throw Failure("unknown entity \(entity)") }
        let names = declared.attributes.map(\.name)
        var rows: [[AttributeValue?]] = []
        for object in objects {
            rows.append(try names.map { name in try engine { () throws(MappingError) in try context.value(of: object, attribute: name).0 } })
        }
        if json {
            let array = JSONValue.array(rows.map { row in
                .object(zip(names, row).map { JSONMember($0, $1?.jsonValue ?? .null) })
            })
            print(array.text(pretty: true))
        } else {
            print(table(names, rows.map { $0.map { $0?.cell ?? "null" } }))
            print("(\(objects.count) \(objects.count == 1 ? "object" : "objects"))")
        }
    }
}
