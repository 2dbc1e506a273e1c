import MappingCore
import MappingSQL

extension SQLiteStore {
    /// Writes one commit in one SQLite transaction: deleted rows go, inserted rows are added whole
    /// (their `_id`s are given out here first, so links between new objects need no second pass),
    /// updated rows are rewritten. On any failure the SQLite transaction rolls back, the key table is
    /// put back, and the error fails the commit.
    public func write(_ commit: StoreCommit) throws(MappingError) {
        guard !readOnly else {
            throw MappingError(.store, "the store \"\(connection.path)\" was opened read-only: nothing was changed")
        }
        var removed: [(ObjectID, Int64)] = []
        var added: [ObjectID] = []
        let idsBefore = nextIDs
        try connection.execute("BEGIN IMMEDIATE")
        do throws(MappingError) {
            // Places in lists the graph has not read: closed where rows leave, then counted where
            // they join, before any row is written (`StoreCommit.listMoves`).
            for move in commit.listMoves {
                guard let left = move.left, let owner = rowID(left), let id = rowID(move.object) else { continue }
                for (sql, values) in layout.closingPlace(move, owner: owner, id: id) { try connection.statement(sql).run(values) }
            }
            for row in commit.unlinked {
                guard let owner = rowID(row.owner), let id = rowID(row.object),
                      let (sql, values) = layout.unlinking(row, owner: owner, id: id) else { continue }
                try connection.statement(sql).run(values)
            }
            let appended = try layout.placesAtEnd(commit.listMoves, owner: rowID) { (sql, values) throws(MappingError) -> StoredValue? in
                let query = try connection.statement(sql)
                defer { query.reset() }
                for (index, value) in values.enumerated() { try query.bind(Int32(clamping: index + 1), value) }
                return try query.step() ? query.column(0) : nil
            }
            for (object, entity) in commit.deleted {
                if let key = try delete(object, entity) { removed.append((object, key)) }
            }
            for row in commit.inserted where layout.root.indices.contains(row.entity.index) {
                let root = layout.root[row.entity.index]
                let key = StoreLayout.globalKey(root: root, id: try nextID(root: root))
                rowKeys.set(row.object, key: key)
                added.append(row.object)
            }
            for row in commit.inserted { try write(row, isNew: true) }
            for row in commit.updated + commit.moved { try write(row, isNew: false) }
            for moved in commit.repositioned { try reposition(moved) }
            for moved in appended { try reposition(moved) }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            for object in added { rowKeys.remove(object) }
            for (object, key) in removed { rowKeys.set(object, key: key) }
            nextIDs = idsBefore
            throw error
        }
    }

    /// The next free `_id` of a table (the file is locked to this context, so ids can be given out
    /// before the rows are written).
    private func nextID(root: Int) throws(MappingError) -> Int64 {
        if let next = nextIDs[root] {
            nextIDs[root] = next + 1
            return next
        }
        guard let table = layout.tables[root] else { throw MappingError(.failed, "no table for an entity of the model") }
        let query = try connection.statement("SELECT coalesce(max(\"_id\"), 0) FROM \(quote(table.name))")
        guard try query.step(), case .integer(let highest) = query.column(0) else {
            throw MappingError(.store, "cannot read the ids of \(quote(table.name))")
        }
        query.reset()
        nextIDs[root] = highest + 2
        return highest + 1
    }

    private func delete(_ object: ObjectID, _ entity: Entity) throws(MappingError) -> Int64? {
        guard let key = rowKeys.key(of: object), layout.root.indices.contains(entity.index),
              let table = layout.tables[layout.root[entity.index]] else { return nil }
        let id = StoreLayout.rowID(of: key)
        try connection.statement("DELETE FROM \(quote(table.name)) WHERE \"_id\" = ?").run([.integer(id)])
        for join in layout.joinTables[entity.index].compactMap({ $0 }) {
            try connection.statement("DELETE FROM \(quote(join)) WHERE \"owner\" = ?").run([.integer(id)])
        }
        rowKeys.remove(object)
        return key
    }

    /// A row as the object is now: inserted whole, or every column rewritten; and its to-many links.
    private func write(_ row: StoreCommit.Row, isNew: Bool) throws(MappingError) {
        guard let key = rowKeys.key(of: row.object).map(StoreLayout.rowID) else { return }
        let sql = statements(for: row.entity)
        var values: [StoredValue] = []
        values.reserveCapacity(3 + row.values.count + 2 * row.links.count)
        if isNew { values += [.integer(key), .text(row.entity.name)] }
        for index in layout.attributeColumns[row.entity.index].indices {
            values.append(StoredValue(row.values.indices.contains(index) ? row.values[index] : nil))
        }
        for (index, column) in layout.linkColumns[row.entity.index].enumerated() where column != nil {
            let target = row.links.indices.contains(index) ? row.links[index].first.flatMap { rowKeys.key(of: $0) }.map(StoreLayout.rowID) : nil
            values.append(target.map(StoredValue.integer) ?? .null)
        }
        for (index, column) in layout.positionColumns[row.entity.index].enumerated() where column != nil {
            let position = row.positions.indices.contains(index) ? row.positions[index] : nil
            values.append(position.map { StoredValue.integer(Int64($0)) } ?? .null)
        }
        if !isNew { values.append(.integer(key)) }
        try connection.statement(isNew ? sql.insert : sql.update).run(values)
        for (index, join) in layout.joinTables[row.entity.index].enumerated() {
            guard let join, row.links.indices.contains(index) else { continue }
            if !isNew { try connection.statement("DELETE FROM \(quote(join)) WHERE \"owner\" = ?").run([.integer(key)]) }
            let add = "INSERT INTO \(quote(join)) (\"owner\", \"target\", \"position\") VALUES (?, ?, ?)"
            for (position, target) in row.links[index].enumerated() {
                guard let targetKey = rowKeys.key(of: target).map(StoreLayout.rowID) else { continue }
                try connection.statement(add).run([.integer(key), .integer(targetKey), .integer(Int64(position))])
            }
        }
    }

    /// The `_id` of an object's row, if it has one.
    private func rowID(_ object: ObjectID) -> Int64? { rowKeys.key(of: object).map(StoreLayout.rowID) }

    /// A row the graph has not read, moved within an owner's to-many: its position column.
    private func reposition(_ moved: StoreCommit.Repositioned) throws(MappingError) {
        let entity = moved.entity.index
        guard let key = rowKeys.key(of: moved.object), layout.positionColumns.indices.contains(entity),
              layout.positionColumns[entity].indices.contains(moved.relationship),
              let column = layout.positionColumns[entity][moved.relationship], let table = layout.tables[layout.root[entity]] else { return }
        try connection.statement("UPDATE \(quote(table.name)) SET \(quote(column)) = ? WHERE \"_id\" = ?")
            .run([.integer(Int64(moved.position)), .integer(StoreLayout.rowID(of: key))])
    }

    /// The INSERT and UPDATE of an entity's rows, made once: its attribute columns, its to-one
    /// columns, then their position columns.
    private func statements(for entity: Entity) -> (insert: String, update: String) {
        if let made = rowStatements[entity.index] { return made }
        let table = layout.tables[layout.root[entity.index]]?.name ?? entity.name
        let columns = layout.attributeColumns[entity.index] + layout.linkColumns[entity.index].compactMap { $0 }
            + layout.positionColumns[entity.index].compactMap { $0 }
        let insert = "INSERT INTO \(quote(table)) (\"_id\", \"_entity\"\(columns.map { ", " + quote($0) }.joined())) VALUES (?, ?"
            + String(repeating: ", ?", count: columns.count) + ")"
        // A row's position is null when its owner's list is not read: the stored one stands.
        let positions = Set(layout.positionColumns[entity.index].compactMap { $0 })
        let sets = columns.map { positions.contains($0) ? "\(quote($0)) = coalesce(?, \(quote($0)))" : quote($0) + " = ?" }
        let update = columns.isEmpty ? "UPDATE \(quote(table)) SET \"_entity\" = \"_entity\" WHERE \"_id\" = ?"
            : "UPDATE \(quote(table)) SET \(sets.joined(separator: ", ")) WHERE \"_id\" = ?"
        rowStatements[entity.index] = (insert, update)
        return (insert, update)
    }
}
