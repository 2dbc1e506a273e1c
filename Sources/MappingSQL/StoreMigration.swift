import MappingCore

/// Migration to a grown spec (Core Data's lightweight migration), the same for both databases: the
/// statements that bring a store laid out as `old` (the stored model under the names the new spec
/// gives its elements, after `renames(to:)`) up to this layout, or MAPPING_ESPEC naming what changed
/// beyond growth. Added entities, attributes and relationships get their tables and columns (values
/// null). A changed type or identification, an attribute or relationship removed, a relationship
/// stored differently, a removed entity that still has objects, or an entity moved to another
/// hierarchy is refused.
extension StoreLayout {
    /// `count(table, entity)` counts a table's rows (of one entity when given).
    package func growth(from old: StoreLayout,
                        count: (String, String?) throws(MappingError) -> Int64) throws(MappingError) -> [String] {
        var statements: [String] = []
        var references: [String] = []
        let drop = dialect == .postgres ? " CASCADE" : ""
        let newTables = Dictionary(tables.map { ($0.value.name, $0.key) }, uniquingKeysWith: { first, _ in first })
        for (_, oldTable) in old.tables.sorted(by: { $0.key < $1.key }) {
            guard let rootIndex = newTables[oldTable.name], let newTable = tables[rootIndex] else {
                try refuseIfHolding(table: oldTable.name, what: "entity \"\(oldTable.name)\" was removed from the spec", count: count)
                statements.append("DROP TABLE \(quote(oldTable.name))\(drop)")
                continue
            }
            for (index, column) in oldTable.columns.enumerated() {
                guard let match = newTable.columns.firstIndex(of: column) else {
                    throw MappingError(.spec, "\(oldTable.name).\(column) is stored but no longer in the spec (a rename needs \"renamedFrom\"); changing it needs a rebuilt store",
                                       attribute: "\(oldTable.name).\(column)")
                }
                guard newTable.types[match] == oldTable.types[index] else {
                    throw MappingError(.spec, "\(oldTable.name).\(column) changed type (\(oldTable.types[index]) in the store, \(newTable.types[match]) in the spec); changing it needs a rebuilt store",
                                       attribute: "\(oldTable.name).\(column)")
                }
            }
            for (index, column) in newTable.columns.enumerated() where !oldTable.columns.contains(column) {
                statements.append("ALTER TABLE \(quote(newTable.name)) ADD COLUMN \(columnDefinition(newTable, index))")
                if let reference = foreignKey(newTable, index) { references.append(reference) }
            }
        }
        for rootIndex in tables.keys.sorted() {
            guard let table = tables[rootIndex], !old.tables.values.contains(where: { $0.name == table.name }) else { continue }
            statements += tableCreation(root: rootIndex)
            references += table.columns.indices.compactMap { foreignKey(table, $0) }
        }
        try checkEntities(old: old, count: count)
        let oldJoins = old.joins, newJoins = joins
        for join in oldJoins.keys.sorted() where newJoins[join] == nil {
            try refuseIfHolding(table: join, what: "the relationship stored in \(join) was removed or is stored differently now", count: count)
            statements.append("DROP TABLE \(quote(join))\(drop)")
        }
        for join in newJoins.keys.sorted() where oldJoins[join] == nil { statements.append(joinCreation(join)) }
        for rootIndex in tables.keys.sorted() { statements += indexCreation(root: rootIndex) }
        return statements + references
    }

    /// Entities that stay must keep their identification; entities that went must have no objects.
    private func checkEntities(old: StoreLayout, count: (String, String?) throws(MappingError) -> Int64) throws(MappingError) {
        for entity in old.model.entities {
            let name = old.naming.entities[entity.index]
            guard let now = model.entity(named: name) else {
                if let table = old.tables[old.root[entity.index]], tables.values.contains(where: { $0.name == table.name }) {
                    try refuseIfHolding(table: table.name, entity: name, what: "entity \"\(name)\" was removed from the spec", count: count)
                }
                continue
            }
            guard old.identityColumns(entity) == identityColumns(now) else {
                throw MappingError(.spec, "the identification of \(name) changed; changing it needs a rebuilt store", attribute: name)
            }
            guard old.naming.entities[old.root[entity.index]] == naming.entities[root[now.index]] else {
                throw MappingError(.spec, "\(name) moved to another entity hierarchy; that needs a rebuilt store", attribute: name)
            }
        }
    }

    /// MAPPING_ESPEC when the table (or its rows of one entity) holds objects.
    private func refuseIfHolding(table: String, entity: String? = nil, what: String,
                                 count: (String, String?) throws(MappingError) -> Int64) throws(MappingError) {
        let held = try count(table, entity)
        if held > 0 {
            throw MappingError(.spec, "\(what), but the store holds \(held) of its objects; that needs a rebuilt store",
                               attribute: entity ?? table)
        }
    }
}
