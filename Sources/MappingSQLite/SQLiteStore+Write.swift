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
            for move in commit.listMoves { try closePlace(move) }
            for unlinked in commit.unlinked { try unlink(unlinked) }
            let appended = try placesAtEnd(commit.listMoves)
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
            for (move, position) in appended { try reposition(.init(object: move.object, entity: move.entity, relationship: move.relationship,
                                                                    position: position)) }
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

    /// Clears the to-one of a row the graph has not read that left its owner's list.
    private func unlink(_ row: StoreCommit.Unlinked) throws(MappingError) {
        guard let key = rowKeys.key(of: row.object).map(StoreLayout.rowID), let owner = rowKeys.key(of: row.owner).map(StoreLayout.rowID),
              let (table, link, position) = layout.listColumns(entity: row.entity.index, relationship: row.relationship) else { return }
        try connection.statement("UPDATE \(quote(table)) SET \(quote(link)) = NULL, \(quote(position)) = NULL WHERE \"_id\" = ? AND \(quote(link)) = ?")
            .run([.integer(key), .integer(owner)])
    }

    /// Closes the place a row leaves in a list the graph has not read: the rows after it move up,
    /// and the row holds no place until it is written (so the lists it joins do not count it).
    private func closePlace(_ move: StoreCommit.ListMove) throws(MappingError) {
        guard let left = move.left, let owner = rowKeys.key(of: left).map(StoreLayout.rowID),
              let key = rowKeys.key(of: move.object).map(StoreLayout.rowID), let (table, link, position) = layout.listColumns(move) else { return }
        try connection.statement("UPDATE \(quote(table)) SET \(quote(position)) = \(quote(position)) - 1 WHERE \(quote(link)) = ? AND "
                                 + "\(quote(position)) > (SELECT \(quote(position)) FROM \(quote(table)) WHERE \"_id\" = ? AND \(quote(link)) = ?)")
            .run([.integer(owner), .integer(key), .integer(owner)])
        try connection.statement("UPDATE \(quote(table)) SET \(quote(position)) = NULL WHERE \"_id\" = ?").run([.integer(key)])
    }

    /// The places of rows joining lists the graph has not read: after the list's last, in the order
    /// they joined (asked before any row is written, so the joining rows are not counted).
    private func placesAtEnd(_ moves: [StoreCommit.ListMove]) throws(MappingError) -> [(StoreCommit.ListMove, Int)] {
        var next: [String: Int64] = [:]
        var places: [(StoreCommit.ListMove, Int)] = []
        for move in moves {
            guard let joined = move.joined, let owner = rowKeys.key(of: joined).map(StoreLayout.rowID),
                  let (table, link, position) = layout.listColumns(move) else { continue }
            let list = "\(table).\(link).\(owner)"
            if next[list] == nil {
                let query = try connection.statement("SELECT coalesce(max(\(quote(position))), -1) + 1 FROM \(quote(table)) WHERE \(quote(link)) = ?")
                try query.bind(1, .integer(owner))
                guard try query.step(), case .integer(let first) = query.column(0) else {
                    query.reset()
                    throw MappingError(.store, "cannot read the positions of \(quote(table)).\(quote(position))")
                }
                query.reset()
                next[list] = first
            }
            let place = next[list] ?? 0
            // A position at the top of the range is a store changed by hand, not a list that long.
            let (following, overflow) = place.addingReportingOverflow(1)
            guard !overflow else { throw MappingError(.store, "\(quote(table)).\(quote(position)) holds a position no list reaches: "
                                                      + "the store was changed outside libmapping") }
            next[list] = following
            places.append((move, Int(truncatingIfNeeded: place)))
        }
        return places
    }

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
