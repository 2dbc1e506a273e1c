import MappingCore

extension SQLiteStore {
    /// An object's key across the whole file: its table (the root entity's index) in the high bits,
    /// its `_id` in the low 48.
    static func globalKey(root: Int, id: Int64) -> Int64 { Int64(truncatingIfNeeded: root) << 48 | (id & 0xFFFF_FFFF_FFFF) }
    static func rowID(of key: Int64) -> Int64 { key & 0xFFFF_FFFF_FFFF }

    /// Every object in the file, with its values and the keys of its targets, in `_id` order per
    /// table (creation order: a graph reopened lists its objects as it did before).
    func load() throws(MappingError) -> [StoredObject] {
        var entityByName: [String: Int] = [:]
        for entity in layout.model.entities { entityByName[entity.name] = entity.index }
        var objects: [StoredObject] = []
        var toMany: [String: [Int64: [Int64]]] = [:]
        for join in Set(layout.joinTables.flatMap { $0.compactMap { $0 } }) {
            let rows = try connection.statement("SELECT \"owner\", \"target\" FROM \(quote(join)) ORDER BY \"owner\", \"position\"")
            var targets: [Int64: [Int64]] = [:]
            while try rows.step() {
                if case .integer(let owner) = rows.column(0), case .integer(let target) = rows.column(1) {
                    targets[owner, default: []].append(target)
                }
            }
            rows.reset()
            toMany[join] = targets
        }
        for (rootIndex, table) in layout.tables.sorted(by: { $0.key < $1.key }) {
            let columns = ["\"_id\"", "\"_entity\""] + table.columns.map(quote)
            let rows = try connection.statement("SELECT \(columns.joined(separator: ", ")) FROM \(quote(table.name)) ORDER BY \"_id\"")
            var position: [String: Int32] = [:]
            for (index, column) in table.columns.enumerated() { position[column] = Int32(clamping: index + 2) }
            while try rows.step() {
                guard case .integer(let id) = rows.column(0), id >= 0, id < 1 << 48, case .text(let name) = rows.column(1),
                      let entityIndex = entityByName[name], layout.root[entityIndex] == rootIndex else {
                    throw MappingError(.store, "a row of \(quote(table.name)) names no entity of the spec")
                }
                let entity = layout.model.entities[entityIndex]
                var values: [AttributeValue?] = []
                for (index, attribute) in entity.attributes.enumerated() {
                    let column = layout.attributeColumns[entityIndex][index]
                    if let at = position[column] {
                        values.append(try rows.column(at).attribute(attribute.type, column: column))
                    } else {
                        values.append(nil)
                    }
                }
                var links: [[Int64]] = []
                for (index, relationship) in entity.relationships.enumerated() {
                    let targetRoot = layout.root[relationship.destination]
                    if relationship.toMany, let join = layout.joinTables[entityIndex][index] {
                        links.append((toMany[join]?[id] ?? []).map { Self.globalKey(root: targetRoot, id: $0) })
                    } else if let column = layout.linkColumns[entityIndex][index], let at = position[column],
                              case .integer(let target) = rows.column(at) {
                        links.append([Self.globalKey(root: targetRoot, id: target)])
                    } else {
                        links.append([])
                    }
                }
                objects.append(StoredObject(key: Self.globalKey(root: rootIndex, id: id), entity: entityIndex,
                                            values: values, links: links))
            }
            rows.reset()
        }
        return objects
    }
}
