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
            let places = ColumnPlaces(layout, table: table)
            // Rows of one table mostly name the same entity: the last name read is compared as bytes
            // before a new String is made and looked up.
            var last: (name: [UInt8], entity: Int)?
            while try query.step() {
                let entityIndex: Int
                if let last, query.column(1, is: last.name) {
                    entityIndex = last.entity
                } else {
                    guard case .text(let name) = query.column(1), let found = entityByName[name], layout.root[found] == rootIndex else {
                        throw MappingError(.store, "a row of \(quote(table.name)) names no entity of the spec")
                    }
                    entityIndex = found
                    last = (Array(name.utf8), found)
                }
                guard case .integer(let id) = query.column(0), id >= 0, id < 1 << 48 else {
                    throw MappingError(.store, "a row of \(quote(table.name)) has an _id out of range")
                }
                let key = Self.globalKey(root: rootIndex, id: id)
                let entity = layout.model.entities[entityIndex]
                var values: [AttributeValue?] = []
                values.reserveCapacity(entity.attributes.count)
                for (index, attribute) in entity.attributes.enumerated() {
                    if let at = places.attributes[entityIndex][index] {
                        values.append(try query.column(at).attribute(attribute.type, column: layout.attributeColumns[entityIndex][index]))
                    } else {
                        values.append(nil)
                    }
                }
                var links: [[Int64]] = []
                links.reserveCapacity(entity.relationships.count)
                for (index, relationship) in entity.relationships.enumerated() {
                    let targetRoot = layout.root[relationship.destination]
                    if relationship.toMany {
                        let join = layout.joinTables[entityIndex][index]
                        links.append(join.map { (toMany[$0]?[id] ?? []).map { Self.globalKey(root: targetRoot, id: $0) } } ?? [])
                    } else if let at = places.links[entityIndex][index], case .integer(let target) = query.column(at) {
                        guard target > 0, target < 1 << 48 else {
                            throw MappingError(.store, "row \(id) of \(quote(table.name)) links to _id \(target), which no row can have")
                        }
                        let owner = Self.globalKey(root: targetRoot, id: target)
                        links.append([owner])
                        if let inverse = relationship.inverse, layout.positionColumns[entityIndex][index] != nil {
                            var place = id
                            if let at = places.positions[entityIndex][index], case .integer(let stored) = query.column(at) { place = stored }
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
        try checkLinks(rows.map { ($0.key, $0.entity, $0.links) })
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

    /// Every link must reach a row of the relationship's destination (or a sub-entity of it): a
    /// file edited by hand could point a to-one at a sibling entity sharing the table, which would
    /// break the graph's inverses. Links to rows that are gone are dropped when attaching.
    private func checkLinks(_ rows: [(key: Int64, entity: Int, links: [[Int64]])]) throws(MappingError) {
        var entityOf: [Int64: Int] = [:]
        entityOf.reserveCapacity(rows.count)
        for row in rows { entityOf[row.key] = row.entity }
        let model = layout.model
        for row in rows {
            let entity = model.entities[row.entity]
            for (index, targets) in row.links.enumerated() where entity.relationships.indices.contains(index) {
                let relationship = entity.relationships[index]
                for target in targets {
                    guard let found = entityOf[target], !model.isKind(found, of: relationship.destination) else { continue }
                    throw MappingError(.store, "\(entity.name).\(relationship.name) of row \(Self.rowID(of: row.key)) links to a "
                                       + "\(model.entities[found].name), not a \(model.entities[relationship.destination].name): the file was changed by hand",
                                       attribute: "\(entity.name).\(relationship.name)")
                }
            }
        }
    }

    /// Where each entity's attribute, to-one and position columns are in a table's SELECT (after
    /// `_id` and `_entity`), worked out once per table rather than once per row.
    private struct ColumnPlaces {
        var attributes: [[Int32?]] = []
        var links: [[Int32?]] = []
        var positions: [[Int32?]] = []

        init(_ layout: StoreLayout, table: StoreLayout.Table) {
            var place: [String: Int32] = [:]
            for (index, column) in table.columns.enumerated() { place[column] = Int32(clamping: index + 2) }
            attributes = layout.attributeColumns.map { $0.map { place[$0] } }
            links = layout.linkColumns.map { $0.map { $0.flatMap { place[$0] } } }
            positions = layout.positionColumns.map { $0.map { $0.flatMap { place[$0] } } }
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
                    guard owner > 0, owner < 1 << 48, target > 0, target < 1 << 48 else {
                        throw MappingError(.store, "\(quote(join)) holds an _id no row can have (\(owner) → \(target))")
                    }
                    targets[owner, default: []].append(target)
                }
            }
            query.reset()
            toMany[join] = targets
        }
        return toMany
    }
}
