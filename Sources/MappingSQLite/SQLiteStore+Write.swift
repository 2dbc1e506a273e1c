import MappingCore

extension SQLiteStore {
    /// Writes one commit in one SQLite transaction: deleted rows go, inserted rows are added (first
    /// without their links, so links between new objects find their `_id`s), then the links and
    /// values of every inserted and updated row are written. On any failure the SQLite transaction
    /// rolls back, the key table is put back, and the error fails the commit.
    public func write(_ commit: StoreCommit) throws(MappingError) {
        guard !readOnly else {
            throw MappingError(.store, "the store \"\(connection.path)\" was opened read-only: nothing was changed")
        }
        let keysBefore = keys
        try connection.execute("BEGIN IMMEDIATE")
        do throws(MappingError) {
            for (object, entity) in commit.deleted { try delete(object, entity) }
            for row in commit.inserted { try insert(row) }
            for row in commit.inserted + commit.updated { try update(row) }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            keys = keysBefore
            throw error
        }
    }

    private func table(of entity: Entity) -> StoreLayout.Table? {
        layout.root.indices.contains(entity.index) ? layout.tables[layout.root[entity.index]] : nil
    }

    private func delete(_ object: ObjectID, _ entity: Entity) throws(MappingError) {
        guard let key = keys[object], let table = table(of: entity) else { return }
        try connection.statement("DELETE FROM \(quote(table.name)) WHERE \"_id\" = ?").run([.integer(key)])
        for join in layout.joinTables[entity.index].compactMap({ $0 }) {
            try connection.statement("DELETE FROM \(quote(join)) WHERE \"owner\" = ?").run([.integer(key)])
        }
        keys[object] = nil
    }

    private func insert(_ row: StoreCommit.Row) throws(MappingError) {
        guard let table = table(of: row.entity) else { return }
        try connection.statement("INSERT INTO \(quote(table.name)) (\"_entity\") VALUES (?)").run([.text(row.entity.name)])
        keys[row.object] = connection.lastRowID
    }

    /// Every column of the row's entity, and its to-many join rows, as the object is now.
    private func update(_ row: StoreCommit.Row) throws(MappingError) {
        guard let key = keys[row.object], let table = table(of: row.entity) else { return }
        var assignments: [String] = []
        var values: [StoredValue] = []
        for (index, column) in layout.attributeColumns[row.entity.index].enumerated() where row.values.indices.contains(index) {
            assignments.append("\(quote(column)) = ?")
            values.append(StoredValue(row.values[index]))
        }
        for (index, column) in layout.linkColumns[row.entity.index].enumerated() {
            guard let column, row.links.indices.contains(index) else { continue }
            assignments.append("\(quote(column)) = ?")
            values.append(row.links[index].first.flatMap { keys[$0] }.map(StoredValue.integer) ?? .null)
        }
        if !assignments.isEmpty {
            try connection.statement("UPDATE \(quote(table.name)) SET \(assignments.joined(separator: ", ")) WHERE \"_id\" = ?")
                .run(values + [.integer(key)])
        }
        for (index, join) in layout.joinTables[row.entity.index].enumerated() {
            guard let join, row.links.indices.contains(index) else { continue }
            try connection.statement("DELETE FROM \(quote(join)) WHERE \"owner\" = ?").run([.integer(key)])
            let add = "INSERT INTO \(quote(join)) (\"owner\", \"target\", \"position\") VALUES (?, ?, ?)"
            for (position, target) in row.links[index].enumerated() {
                guard let targetKey = keys[target] else { continue }
                try connection.statement(add).run([.integer(key), .integer(targetKey), .integer(Int64(position))])
            }
        }
    }
}
