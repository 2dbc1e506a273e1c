import MappingCore

extension SQLiteStore {
    /// An object's key across the whole file: its table (the root entity's index) in the high bits,
    /// its `_id` in the low 48.
    static func globalKey(root: Int, id: Int64) -> Int64 { Int64(truncatingIfNeeded: root) << 48 | (id & 0xFFFF_FFFF_FFFF) }
    static func rowID(of key: Int64) -> Int64 { key & 0xFFFF_FFFF_FFFF }

    /// A to-many read back from the to-one column of its targets: owner and relationship.
    private struct OwnerLink: Hashable {
        let owner: Int64
        let relationship: Int
    }

    /// Every object in the file, with its values and the keys of its targets, in `_id` order per
    /// table (creation order: a graph reopened lists its objects as it did before).
    func load() throws(MappingError) -> [StoredObject] {
        var entityByName: [String: Int] = [:]
        for entity in layout.model.entities { entityByName[entity.name] = entity.index }
        let toMany = try joinTargets()
        // One-to-many relationships are read from their targets' rows: (position, target) per owner.
        var reverse: [OwnerLink: [(position: Int64, target: Int64)]] = [:]
        var rows: [(key: Int64, entity: Int, values: [AttributeValue?], links: [[Int64]])] = []
        for (rootIndex, table) in layout.tables.sorted(by: { $0.key < $1.key }) {
            let columns = ["\"_id\"", "\"_entity\""] + table.columns.map(quote)
            let query = try connection.statement("SELECT \(columns.joined(separator: ", ")) FROM \(quote(table.name)) ORDER BY \"_id\"")
            var position: [String: Int32] = [:]
            for (index, column) in table.columns.enumerated() { position[column] = Int32(clamping: index + 2) }
            while try query.step() {
                guard case .integer(let id) = query.column(0), id >= 0, id < 1 << 48, case .text(let name) = query.column(1),
                      let entityIndex = entityByName[name], layout.root[entityIndex] == rootIndex else {
                    throw MappingError(.store, "a row of \(quote(table.name)) names no entity of the spec")
                }
                let key = Self.globalKey(root: rootIndex, id: id)
                let entity = layout.model.entities[entityIndex]
                var values: [AttributeValue?] = []
                for (index, attribute) in entity.attributes.enumerated() {
                    let column = layout.attributeColumns[entityIndex][index]
                    if let at = position[column] {
                        values.append(try query.column(at).attribute(attribute.type, column: column))
                    } else {
                        values.append(nil)
                    }
                }
                var links: [[Int64]] = []
                for (index, relationship) in entity.relationships.enumerated() {
                    let targetRoot = layout.root[relationship.destination]
                    if relationship.toMany {
                        let join = layout.joinTables[entityIndex][index]
                        links.append(join.map { (toMany[$0]?[id] ?? []).map { Self.globalKey(root: targetRoot, id: $0) } } ?? [])
                    } else if let column = layout.linkColumns[entityIndex][index], let at = position[column],
                              case .integer(let target) = query.column(at) {
                        let owner = Self.globalKey(root: targetRoot, id: target)
                        links.append([owner])
                        if let inverse = relationship.inverse, let positionColumn = layout.positionColumns[entityIndex][index] {
                            var place = id
                            if let at = position[positionColumn], case .integer(let stored) = query.column(at) { place = stored }
                            reverse[OwnerLink(owner: owner, relationship: inverse), default: []].append((place, key))
                        }
                    } else {
                        links.append([])
                    }
                }
                rows.append((key, entityIndex, values, links))
            }
            query.reset()
        }
        return rows.map { row in
            var links = row.links
            for (index, relationship) in layout.model.entities[row.entity].relationships.enumerated()
            where relationship.toMany && layout.joinTables[row.entity][index] == nil && links.indices.contains(index) {
                let held = reverse[OwnerLink(owner: row.key, relationship: index)] ?? []
                links[index] = held.sorted { ($0.position, $0.target) < ($1.position, $1.target) }.map(\.target)
            }
            return StoredObject(key: row.key, entity: row.entity, values: row.values, links: links)
        }
    }

    /// The targets of each join table, by owner `_id`, in position order.
    private func joinTargets() throws(MappingError) -> [String: [Int64: [Int64]]] {
        var toMany: [String: [Int64: [Int64]]] = [:]
        for join in Set(layout.joinTables.flatMap { $0.compactMap { $0 } }) {
            let query = try connection.statement("SELECT \"owner\", \"target\" FROM \(quote(join)) ORDER BY \"owner\", \"position\"")
            var targets: [Int64: [Int64]] = [:]
            while try query.step() {
                if case .integer(let owner) = query.column(0), case .integer(let target) = query.column(1) {
                    targets[owner, default: []].append(target)
                }
            }
            query.reset()
            toMany[join] = targets
        }
        return toMany
    }
}
