import MappingCore
import MappingSQL

/// The statements a commit runs on rows, by what they do. A commit finds each prepared statement
/// by this key (a few integers) instead of by its text: the text is written once per key, where
/// writing and hashing it per row was a visible share of a commit.
enum RowStatement: Hashable {
    /// An INSERT of `rows` rows at once (`SQLiteStore.insertBatches`).
    case insert(entity: Int, rows: Int)
    /// An UPDATE of the columns marked, in the order `SQLiteStore.rowColumns` gives them.
    case update(entity: Int, columns: [Bool])
    case delete(root: Int)
    case deleteJoin(entity: Int, relationship: Int)
    case insertJoin(entity: Int, relationship: Int)
    case reposition(entity: Int, relationship: Int)
}

extension SQLiteStore {
    /// The prepared statement for `key`, reset for a new run.
    func statement(_ key: RowStatement) throws(MappingError) -> Statement {
        try connection.statement(key) { () throws(MappingError) -> String in
            guard let sql = sql(for: key) else { throw MappingError(.failed, "no statement for a part of the model the store does not hold") }
            return sql
        }
    }

    /// An entity's row columns, in the order its INSERT and UPDATEs bind them: attribute columns,
    /// to-one columns, then their position columns.
    func rowColumns(_ entity: Int) -> [String] {
        guard layout.attributeColumns.indices.contains(entity) else { return [] }
        return layout.attributeColumns[entity] + layout.linkColumns[entity].compactMap { $0 }
            + layout.positionColumns[entity].compactMap { $0 }
    }

    private func table(of entity: Int) -> String? {
        guard layout.root.indices.contains(entity) else { return nil }
        return layout.tables[layout.root[entity]]?.name
    }

    private func sql(for key: RowStatement) -> String? {
        switch key {
        case .insert(let entity, let rows):
            // The entity's name is part of the text (a statement per entity): binding it for every
            // row copied it every time.
            guard let table = table(of: entity), layout.model.entities.indices.contains(entity), rows > 0 else { return nil }
            let columns = rowColumns(entity)
            let row = "(?, " + quote(layout.model.entities[entity].name, "'") + String(repeating: ", ?", count: columns.count) + ")"
            return "INSERT INTO \(quote(table)) (\"_id\", \"_entity\"\(columns.map { ", " + quote($0) }.joined())) VALUES "
                + Array(repeating: row, count: rows).joined(separator: ", ")
        case .update(let entity, let marked):
            guard let table = table(of: entity) else { return nil }
            let columns = zip(rowColumns(entity), marked).filter(\.1).map { quote($0.0) + " = ?" }
            guard !columns.isEmpty else { return nil }
            return "UPDATE \(quote(table)) SET \(columns.joined(separator: ", ")) WHERE \"_id\" = ?"
        case .delete(let root):
            return layout.tables[root].map { "DELETE FROM \(quote($0.name)) WHERE \"_id\" = ?" }
        case .deleteJoin(let entity, let relationship):
            return joinTable(entity, relationship).map { "DELETE FROM \(quote($0)) WHERE \"owner\" = ?" }
        case .insertJoin(let entity, let relationship):
            return joinTable(entity, relationship).map { "INSERT INTO \(quote($0)) (\"owner\", \"target\", \"position\") VALUES (?, ?, ?)" }
        case .reposition(let entity, let relationship):
            guard let table = table(of: entity), layout.positionColumns[entity].indices.contains(relationship),
                  let column = layout.positionColumns[entity][relationship] else { return nil }
            return "UPDATE \(quote(table)) SET \(quote(column)) = ? WHERE \"_id\" = ?"
        }
    }

    private func joinTable(_ entity: Int, _ relationship: Int) -> String? {
        guard layout.joinTables.indices.contains(entity), layout.joinTables[entity].indices.contains(relationship) else { return nil }
        return layout.joinTables[entity][relationship]
    }
}
