import MappingCore
import MappingSQL
import MappingJSON

/// A store opened with a spec that grew since it was written (Core Data's lightweight migration):
/// elements the spec renamed (`renamedFrom`) are renamed, added entities, attributes and
/// relationships get their tables and columns (values null), and the store records the new spec. Anything else — a changed type, a changed identification, an
/// attribute or relationship removed, a removed entity that still has objects, a relationship whose
/// storage changed — is MAPPING_ESPEC naming the element, and the file is left as it was, unless the
/// caller asks to rebuild the store (its objects are then dropped).
extension SQLiteStore {
    func migrate(from oldSpecText: String, to specText: String) throws(MappingError) {
        let oldModel: Model
        do {
            oldModel = try CompiledSpec.load(json: oldSpecText).model
        } catch {
            throw MappingError(.store, "the spec recorded in \"\(connection.path)\" no longer loads: \(error.message)")
        }
        // Renames first, then the store (as renamed) is compared with the spec; all in one
        // transaction, so a refusal leaves the file as it was.
        let stored = StoreLayout(model: oldModel)
        let old = StoreLayout(model: oldModel, naming: Naming.renaming(oldModel, to: layout.model))
        let renames = try stored.renames(to: old)
        try connection.execute("BEGIN IMMEDIATE")
        do throws(MappingError) {
            for statement in renames { try connection.execute(statement) }
            for statement in try growth(from: old) { try connection.execute(statement) }
            try connection.statement("UPDATE \"_mapping\" SET \"value\" = ? WHERE \"key\" = 'spec'").run([.text(specText)])
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The statements that bring a store laid out as `old` up to the spec's layout, or MAPPING_ESPEC
    /// for a change that is not growth.
    private func growth(from old: StoreLayout) throws(MappingError) -> [String] {
        var statements: [String] = []
        let newTables = Dictionary(layout.tables.map { ($0.value.name, $0.key) }, uniquingKeysWith: { first, _ in first })
        for (_, oldTable) in old.tables.sorted(by: { $0.key < $1.key }) {
            guard let rootIndex = newTables[oldTable.name], let newTable = layout.tables[rootIndex] else {
                try refuseIfHolding(table: oldTable.name, what: "entity \"\(oldTable.name)\" was removed from the spec")
                statements.append("DROP TABLE \(quote(oldTable.name))")
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
                statements.append("ALTER TABLE \(quote(newTable.name)) ADD COLUMN \(layout.columnDefinition(newTable, index))")
            }
        }
        for rootIndex in layout.tables.keys.sorted() {
            guard let table = layout.tables[rootIndex], !old.tables.values.contains(where: { $0.name == table.name }) else { continue }
            statements += layout.tableCreation(root: rootIndex)
        }
        try checkEntities(old: old)
        let oldJoins = old.joins, newJoins = layout.joins
        for join in oldJoins.keys.sorted() where newJoins[join] == nil {
            try refuseIfHolding(table: join, what: "the relationship stored in \(join) was removed or is stored differently now")
            statements.append("DROP TABLE \(quote(join))")
        }
        for join in newJoins.keys.sorted() where oldJoins[join] == nil { statements.append(layout.joinCreation(join)) }
        for rootIndex in layout.tables.keys.sorted() { statements += layout.indexCreation(root: rootIndex) }
        return statements
    }

    /// Entities that stay must keep their identification; entities that went must have no objects.
    private func checkEntities(old: StoreLayout) throws(MappingError) {
        for entity in old.model.entities {
            let name = old.naming.entities[entity.index]
            guard let now = layout.model.entity(named: name) else {
                if let table = old.tables[old.root[entity.index]], layout.tables.values.contains(where: { $0.name == table.name }) {
                    try refuseIfHolding(table: table.name, entity: name, what: "entity \"\(name)\" was removed from the spec")
                }
                continue
            }
            guard old.identityColumns(entity) == layout.identityColumns(now) else {
                throw MappingError(.spec, "the identification of \(name) changed; changing it needs a rebuilt store", attribute: name)
            }
            guard old.naming.entities[old.root[entity.index]] == layout.naming.entities[layout.root[now.index]] else {
                throw MappingError(.spec, "\(name) moved to another entity hierarchy; that needs a rebuilt store", attribute: name)
            }
        }
    }

    /// MAPPING_ESPEC when the table (or its rows of one entity) holds objects.
    private func refuseIfHolding(table: String, entity: String? = nil, what: String) throws(MappingError) {
        let query = try connection.statement("SELECT count(*) FROM \(quote(table))" + (entity == nil ? "" : " WHERE \"_entity\" = ?"))
        if let entity { try query.bind(1, .text(entity)) }
        guard try query.step() else { return }
        let held = query.column(0)
        query.reset()
        if case .integer(let count) = held, count > 0 {
            throw MappingError(.spec, "\(what), but the store holds \(count) of its objects; that needs a rebuilt store",
                               attribute: entity ?? table)
        }
    }

    /// Drops every table of the store and creates the current schema: what a caller who asked to
    /// rebuild gets when the spec changed beyond growth. The store's objects are gone.
    func rebuild(specText: String) throws(MappingError) {
        let tables = try connection.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        var names: [String] = []
        while try tables.step() { if case .text(let name) = tables.column(0) { names.append(name) } }
        tables.reset()
        try create(specText: specText, dropping: names)
    }
}
