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
            // Lists read with gaps first, numbered as the graph numbered them.
            for list in uneven {
                if let (sql, values) = layout.renumbering(list) { try connection.statement(sql).run(values) }
            }
            // Places in lists the graph has not read: left where rows leave, then counted where
            // they join, before any row is written (`StoreCommit.listMoves`); most rows carry
            // theirs in their own INSERT or UPDATE (`UnreadListPlaces`).
            let unreadPlaces = UnreadListPlaces(commit)
            for (sql, values) in layout.leavingPlaces(unreadPlaces.clearedFirst, id: rowID) { try connection.statement(sql).run(values) }
            for row in commit.unlinked {
                guard let owner = rowID(row.owner), let id = rowID(row.object),
                      let (sql, values) = layout.unlinking(row, owner: owner, id: id) else { continue }
                try connection.statement(sql).run(values)
            }
            let appended = try layout.placesAtEnd(commit.listMoves, owner: rowID) { (sql, values) throws(MappingError) -> [[StoredValue]] in
                let query = try connection.statement(sql)
                defer { query.reset() }
                for (index, value) in values.enumerated() { try query.bind(Int32(clamping: index + 1), value) }
                var rows: [[StoredValue]] = []
                while try query.step() { rows.append([query.column(0)]) }
                return rows
            }
            for (object, entity) in commit.deleted {
                if let key = try delete(object, entity) { removed.append((object, key)) }
            }
            for (root, ids) in StoreLayout.batches(removed.map(\.1)) { try dropLinks(to: root, ids: ids) }
            // Each table's free `_id`s looked up once, then given out in the order rows were made.
            var next: [Int64] = Array(repeating: 0, count: layout.root.count)  // 0: not looked up yet
            for index in commit.inserted.indices where layout.root.indices.contains(commit.inserted[index].entity.index) {
                let object = commit.inserted[index].object
                let root = layout.root[commit.inserted[index].entity.index]
                guard next.indices.contains(root) else { throw MappingError(.failed, "no table for an entity of the model") }
                if next[root] == 0 { next[root] = try firstFreeID(root: root) }
                guard next[root] < 1 << 48 else {
                    throw MappingError(.store, "\(quote(layout.tables[root]?.name ?? "")) has no _id left for a new row (its highest is "
                                       + "2^48 - 1): the store was changed outside libmapping")
                }
                rowKeys.set(object, key: StoreLayout.globalKey(root: root, id: next[root]))
                added.append(object)
                next[root] += 1
            }
            for (root, id) in next.enumerated() where id != 0 { nextIDs[root] = id }
            let (places, placedAfter) = unreadPlaces.split(appended)
            try insert(commit.inserted, places: places)
            for row in commit.updated + commit.moved { try update(row, places: places[row.object] ?? [:]) }
            for moved in commit.repositioned + placedAfter { try reposition(moved) }
            try connection.execute("COMMIT")
            uneven = []
        } catch {
            try? connection.execute("ROLLBACK")
            for object in added { rowKeys.remove(object) }
            for (object, key) in removed { rowKeys.set(object, key: key) }
            nextIDs = idsBefore
            throw error
        }
    }

    /// The first free `_id` of a table (the file is locked to this context, so ids can be given out
    /// before the rows are written). An `_id` is below 2^48 (a row's key holds its table beside it):
    /// a table whose ids reach that, which only a change outside libmapping makes, takes no more rows.
    private func firstFreeID(root: Int) throws(MappingError) -> Int64 {
        guard let table = layout.tables[root] else { throw MappingError(.failed, "no table for an entity of the model") }
        if let known = nextIDs[root] { return known }
        let query = try connection.statement("SELECT coalesce(max(\"_id\"), 0) FROM \(quote(table.name))")
        guard try query.step(), case .integer(let highest) = query.column(0) else {
            throw MappingError(.store, "cannot read the ids of \(quote(table.name))")
        }
        query.reset()
        guard highest >= 0, highest < 1 << 48 else {
            throw MappingError(.store, "a row of \(quote(table.name)) has an _id out of range (\(highest)): the store was changed outside libmapping")
        }
        return highest + 1
    }

    private func delete(_ object: ObjectID, _ entity: Entity) throws(MappingError) -> Int64? {
        guard let key = rowKeys.key(of: object), layout.root.indices.contains(entity.index) else { return nil }
        let id = StoreLayout.rowID(of: key)
        try statement(.delete(root: layout.root[entity.index])).run([.integer(id)])
        for (index, join) in layout.joinTables[entity.index].enumerated() where join != nil {
            try statement(.deleteJoin(entity: entity.index, relationship: index)).run([.integer(id)])
        }
        rowKeys.remove(object)
        return key
    }

    /// New rows whole, entity by entity in the order they were made, several to a statement (SQLite
    /// opens and closes a cursor on the table and on each of its indexes per statement run: a
    /// statement per row spent about a third of SQLite's work on a new row there); their values
    /// bound as they are read (an array of values per row was a visible share of a cold import),
    /// then their to-manys kept in join tables. Their `_id`s are given out already, so the order
    /// they are written in does not matter.
    /// `places`: new rows' places in lists the graph has not read, which they join.
    private func insert(_ rows: [StoreCommit.Row], places: [ObjectID: [Int: Int]]) throws(MappingError) {
        var byEntity: [[Int]] = Array(repeating: [], count: layout.attributeColumns.count)
        // Rows are read in place by index (`rows[index].field`): a loop over the rows, or a row
        // passed whole, copied each (six retains and releases), three times per row.
        for index in rows.indices {
            let entity = rows[index].entity.index
            if byEntity.indices.contains(entity) && rowID(rows[index].object) != nil { byEntity[entity].append(index) }
        }
        let limit = connection.parameterLimit
        for (entity, indices) in byEntity.enumerated() where !indices.isEmpty {
            let perRow = 1 + rowColumns(entity).count
            var start = 0
            while start < indices.count {
                let batch = Self.insertBatch(rows: indices.count - start, perRow: perRow, limit: limit)
                let query = try insertStatement(entity, batch: batch)
                // Text is bound where the graph keeps it (`StoreCommit.Values.textInPlace`: it stays
                // there while the commit is alive), not copied by SQLite; the bindings are cleared
                // once the rows are in, as SQLite asks of text bound that way.
                var column: Int32 = 0
                defer { query.clearBindings() }
                for index in indices[start..<start + batch.rows] {
                    try bindInsert(entity, rows[index].object, rows[index].values, rows[index].links, rows[index].positions,
                                   places: places.isEmpty ? [:] : places[rows[index].object] ?? [:], to: query, after: &column)
                }
                while try query.step() {}
                if hasJoins(entity) {
                    for index in indices[start..<start + batch.rows] {
                        if let key = rowID(rows[index].object) { try writeJoins(rows[index], key: key, replacing: false) }
                    }
                }
                start += batch.rows
            }
        }
    }

    /// How many rows an INSERT takes at once (their parameters within `limit`, SQLite's), and
    /// which of the entity's prepared INSERTs that is: 64, 8 or 1, so an entity has at most three
    /// and a batch of n rows runs at most n / 64 + 14 of them.
    static func insertBatch(rows: Int, perRow: Int, limit: Int) -> (rows: Int, slot: Int) {
        for (slot, size) in [64, 8].enumerated() where rows >= size && size * perRow <= limit { return (size, slot) }
        return (1, 2)
    }

    /// Binds a new row's parameters, after the `column`th (the entity's name is in the statement).
    private func bindInsert(_ entity: Int, _ object: ObjectID, _ values: StoreCommit.Values, _ links: StoreCommit.RowLinks,
                            _ positions: [Int?], places: [Int: Int], to query: Statement,
                            after column: inout Int32) throws(MappingError) {
        func bind(_ value: StoredValue) throws(MappingError) {
            column += 1
            try query.bind(column, value)
        }
        try bind(rowID(object).map(StoredValue.integer) ?? .null)
        for index in layout.attributeColumns[entity].indices {
            guard values.indices.contains(index) else {
                try bind(.null)
                continue
            }
            if let bytes = values.textInPlace(index) {
                column += 1
                try query.bind(column, inPlace: bytes)
            } else {
                try bind(StoredValue(values[index]))
            }
        }
        for (index, link) in layout.linkColumns[entity].enumerated() where link != nil {
            let target = links.indices.contains(index) ? links.target(index).flatMap(rowID) : nil
            try bind(target.map(StoredValue.integer) ?? .null)
        }
        for (index, place) in layout.positionColumns[entity].enumerated() where place != nil {
            let position = (positions.indices.contains(index) ? positions[index] : nil) ?? (places.isEmpty ? nil : places[index])
            try bind(position.map { StoredValue.integer(Int64($0)) } ?? .null)
        }
    }

    /// An entity's prepared INSERT of `batch.rows` rows, kept per entity and batch (found by
    /// index, not by hashing a statement key per row), ready to bind: every parameter is bound
    /// each time, so the old bindings are not cleared.
    private func insertStatement(_ entity: Int, batch: (rows: Int, slot: Int)) throws(MappingError) -> Statement {
        let place = entity * 3 + batch.slot
        if insertStatements.indices.contains(place), let prepared = insertStatements[place] {
            prepared.rewind()
            return prepared
        }
        let prepared = try statement(.insert(entity: entity, rows: batch.rows))
        if place >= insertStatements.count { insertStatements += repeatElement(nil, count: place + 1 - insertStatements.count) }
        insertStatements[place] = prepared
        return prepared
    }

    /// An updated row's columns the commit changed (`StoreCommit.Row.changed`: the others hold
    /// what the file holds, and rewriting an indexed column costs SQLite its index entries) and
    /// its known positions; and the to-manys kept in join tables that changed.
    private func update(_ row: StoreCommit.Row, places: [Int: Int]) throws(MappingError) {
        let entity = row.entity.index
        guard let key = rowID(row.object), layout.attributeColumns.indices.contains(entity) else { return }
        let changed = row.changed  // a few names: searched, which costs less than hashing them into a set
        let relationships = row.entity.relationships
        var marked: [Bool] = []  // the columns written
        var values: [StoredValue] = []
        values.reserveCapacity(1 + row.values.count + 2 * row.links.count)
        // Text is bound where the graph keeps it (as `insert` binds it): its parameter's place.
        var texts: [(place: Int, bytes: UnsafeRawBufferPointer)] = []
        for index in layout.attributeColumns[entity].indices {
            let write = row.entity.attributes.indices.contains(index) && changed.contains(row.entity.attributes[index].name)
            marked.append(write)
            guard write else { continue }
            if row.values.indices.contains(index), let bytes = row.values.textInPlace(index) {
                texts.append((values.count, bytes))
                values.append(.null)
            } else {
                values.append(StoredValue(row.values.indices.contains(index) ? row.values[index] : nil))
            }
        }
        for (index, column) in layout.linkColumns[entity].enumerated() where column != nil {
            let write = relationships.indices.contains(index) && changed.contains(relationships[index].name)
            marked.append(write)
            guard write else { continue }
            let target = row.links.indices.contains(index) ? row.links.target(index).flatMap(rowID) : nil
            values.append(target.map(StoredValue.integer) ?? .null)
        }
        // A position is nil where the owner's list is not read: the stored one stands, or the
        // row joined such a list and `places` holds its new place.
        for (index, column) in layout.positionColumns[entity].enumerated() where column != nil {
            guard let place = (row.positions.indices.contains(index) ? row.positions[index] : nil) ?? places[index] else {
                marked.append(false)
                continue
            }
            marked.append(true)
            values.append(.integer(Int64(place)))
        }
        if marked.contains(true) {
            values.append(.integer(key))
            let query = try statement(.update(entity: entity, columns: marked))
            defer { query.clearBindings() }
            for (place, value) in values.enumerated() { try query.bind(Int32(clamping: place + 1), value) }
            for (place, bytes) in texts { try query.bind(Int32(clamping: place + 1), inPlace: bytes) }
            while try query.step() {}
        }
        try writeJoins(row, key: key, replacing: true, changed: changed)
    }

    /// Whether an entity keeps any to-many in a join table.
    private func hasJoins(_ entity: Int) -> Bool {
        layout.joinTables.indices.contains(entity) && layout.joinTables[entity].contains { $0 != nil }
    }

    /// The to-manys of a row kept in join tables: all of a new row's; of an updated row
    /// (`replacing`), those in `changed`, whose old entries go first.
    private func writeJoins(_ row: StoreCommit.Row, key: Int64, replacing: Bool, changed: [String] = []) throws(MappingError) {
        let entity = row.entity.index
        let relationships = row.entity.relationships
        guard layout.joinTables.indices.contains(entity) else { return }
        for (index, join) in layout.joinTables[entity].enumerated() {
            guard join != nil, row.links.indices.contains(index) else { continue }
            if replacing {
                guard relationships.indices.contains(index), changed.contains(relationships[index].name) else { continue }
                try statement(.deleteJoin(entity: entity, relationship: index)).run([.integer(key)])
            }
            for (position, target) in row.links[index].enumerated() {
                guard let targetKey = rowID(target) else { continue }
                try statement(.insertJoin(entity: entity, relationship: index)).run([.integer(key), .integer(targetKey), .integer(Int64(position))])
            }
        }
    }

    /// Drops the links no delete rule reaches (to-ones without an inverse or whose inverse's rule is
    /// `noAction`, join rows naming a row
    /// as their target) to the deleted rows `ids` of table `root`, in rows the graph may not have
    /// read: SQLite gives the highest `_id` out again, and a later row would otherwise be linked in
    /// a deleted one's place. One statement per column and batch of ids (those columns have no
    /// index: a statement per row would read the table once per deleted row).
    private func dropLinks(to root: Int, ids: [Int64]) throws(MappingError) {
        let prefixes: [String]
        if let known = linkDrops[root] {
            prefixes = known
        } else {
            prefixes = layout.linksNoRuleClears(to: root).map { "UPDATE \(quote($0.table)) SET \(quote($0.column)) = NULL WHERE \(quote($0.column)) IN " }
                + layout.joins.filter { $0.value.target == layout.tables[root]?.name }.keys.sorted()
                    .map { "DELETE FROM \(quote($0)) WHERE \"target\" IN " }
            linkDrops[root] = prefixes
        }
        guard !prefixes.isEmpty, !ids.isEmpty else { return }
        let (marks, bound) = StoreLayout.padded(ids)
        for prefix in prefixes { try connection.statement(prefix + "(\(marks))").run(bound) }
    }

    /// The `_id` of an object's row, if it has one.
    private func rowID(_ object: ObjectID) -> Int64? { rowKeys.key(of: object).map(StoreLayout.rowID) }

    /// A row the graph has not read, moved within an owner's to-many: its position column.
    private func reposition(_ moved: StoreCommit.Repositioned) throws(MappingError) {
        guard let key = rowKeys.key(of: moved.object) else { return }
        try statement(.reposition(entity: moved.entity.index, relationship: moved.relationship))
            .run([.integer(Int64(moved.position)), .integer(StoreLayout.rowID(of: key))])
    }
}
