import MappingCore
import MappingSQL

extension PostgresStore {
    /// How many times a commit runs when PostgreSQL ends it for a deadlock or a serialization
    /// failure, or when an identity another process inserted vanished before it could be read.
    static let attempts = 5

    /// Writes one commit in one PostgreSQL transaction (see `writeRows`), and announces it. A
    /// failure rolls the transaction back and puts the key table back as it was; a deadlock or a
    /// race over a new identity runs the commit again, up to `attempts` times.
    public func write(_ commit: StoreCommit) throws(MappingError) {
        guard !readOnly else {
            throw MappingError(.store, "the store \(quote(schema)) was opened read-only: nothing was changed")
        }
        try reconnectIfLost()
        unreadRowsMet = []
        var attempt = 1
        while true {
            var undo = KeyUndo()
            var transaction: String?
            do throws(MappingError) {
                try connection.execute("BEGIN")
                if try writeRows(commit, undo: &undo) {
                    transaction = try transactionID()
                    try connection.execute("COMMIT")
                    uneven = []
                    return
                }
            } catch {
                if connection.isLost {
                    // Lost during COMMIT: the server says whether it committed. Lost before: the
                    // server rolled the attempt back, and it runs again on a new connection.
                    if let transaction, try committed(transaction) {
                        uneven = []
                        return
                    }
                    undo.restore(self)
                    guard attempt < Self.attempts else { throw error }
                    try reconnectIfLost()
                    attempt += 1
                    continue
                }
                let state = connection.lastState
                try? connection.execute("ROLLBACK")
                undo.restore(self)
                guard PostgresFailure.retryable.contains(state), attempt < Self.attempts else { throw error }
                attempt += 1
                continue
            }
            try? connection.execute("ROLLBACK")
            undo.restore(self)
            guard attempt < Self.attempts else {
                throw MappingError(.conflict, "the store \(quote(schema)): another process kept changing the identities this commit adds "
                                   + "(\(Self.attempts) attempts); nothing was changed")
            }
            attempt += 1
        }
    }

    /// What a conflict's message says comes next.
    private var afterConflict: String {
        follows ? "(the graph is brought up to the database before the next call)"
            : "(this context does not follow other processes' commits: open it again to see them)"
    }

    /// The changes to the key table one attempt made, undone when it fails.
    struct KeyUndo {
        var rows: [(ObjectID, (key: Int64, version: Int64)?)] = []
        var objects: [(Int64, ObjectID?)] = []

        func restore(_ store: PostgresStore) {
            for (key, object) in objects.reversed() { store.objects[key] = object }
            for (object, row) in rows.reversed() { store.rows[object] = row }
        }
    }

    private func setRow(_ object: ObjectID, _ row: (key: Int64, version: Int64)?, _ undo: inout KeyUndo) {
        undo.rows.append((object, rows[object]))
        rows[object] = row
    }

    private func setObject(_ key: Int64, _ object: ObjectID?, _ undo: inout KeyUndo) {
        undo.objects.append((key, objects[key]))
        objects[key] = object
    }

    /// One attempt, inside the transaction: deletions (checked against the versions read), new
    /// rows (each table's from its sequence, `ON CONFLICT DO NOTHING`; a row whose identity another
    /// process inserted first becomes that row), rewritten rows (checked against their versions),
    /// moved positions, join tables, and the announcement. False when it must run again.
    private func writeRows(_ commit: StoreCommit, undo: inout KeyUndo) throws(MappingError) -> Bool {
        var announcement = Announcement()
        // Lists read with gaps first, numbered as the graph numbered them.
        for list in uneven {
            if let (sql, values) = layout.renumbering(list) { try connection.query(marked: sql, values) }
        }
        // Places in lists the graph has not read: left where rows leave, then counted where
        // they join, before any row is written (`StoreCommit.listMoves`); most rows carry
        // theirs in their own INSERT or UPDATE (`UnreadListPlaces`).
        let unreadPlaces = UnreadListPlaces(commit)
        for (sql, values) in layout.leavingPlaces(unreadPlaces.clearedFirst, id: rowID) { try connection.query(marked: sql, values) }
        for row in commit.unlinked {
            // A graph that holds the row reads it again.
            guard let owner = rowID(row.owner), let key = rows[row.object]?.key,
                  let (sql, values) = layout.unlinking(row, owner: owner, id: StoreLayout.rowID(of: key)) else { continue }
            try connection.query(marked: sql, values)
            announcement.changed(key)
        }
        let appended = try layout.placesAtEnd(commit.listMoves, owner: rowID) { (sql, values) throws(MappingError) -> [[StoredValue]] in
            let result = try connection.query(marked: sql, values)
            return (0..<result.count).map { [result.value(row: $0, column: 0), result.value(row: $0, column: 1)] }
        }
        let (places, placedAfter) = unreadPlaces.split(appended)
        try delete(commit.deleted, undo: &undo, announcement: &announcement)
        try assignKeys(commit.inserted, undo: &undo)
        var conflicted: [StoreCommit.Row] = []
        for (entity, list) in grouped(commit.inserted) {
            let result = try connection.query(insertStatement(entity), columns(of: list, places: places, leading: { stored, _ in
                [.integer(StoreLayout.rowID(of: stored.key)), .text(entity.name)]
            }))
            var written: Set<Int64> = []
            for row in 0..<result.count {
                if case .integer(let id) = result.value(row: row, column: 0) { written.insert(id) }
            }
            for row in list where !written.contains(StoreLayout.rowID(of: rows[row.object]?.key ?? 0)) { conflicted.append(row) }
        }
        var rewrite: [(row: StoreCommit.Row, version: Int64)] = []
        var remapped: Set<ObjectID> = []
        var found: [(row: StoreCommit.Row, existing: StoredObject)] = []
        for (entity, list) in grouped(conflicted) {
            guard let existing = try existingRows(entity, list) else { return false }
            for (row, loaded) in zip(list, existing) {
                if let holder = objects[loaded.key], holder != row.object, (rows[holder]?.version ?? 0) == 0 {
                    // A row this graph has not read (linked from one it has), inserted by another
                    // process after this call looked the identity up: the call reads it and runs
                    // again (`faultsMet`), mapping onto it.
                    unreadRowsMet.append(holder)
                    throw MappingError(.conflict, "another process inserted a new \(entity.name) this call made, as a row this "
                                       + "context had not read yet; nothing was changed")
                }
                if let holder = objects[loaded.key], holder != row.object {
                    // This graph holds that row as another object, under an identity it has since lost.
                    throw MappingError(.conflict, "another process gave the identity of a new \(entity.name) to a row this context "
                                       + "holds under another identity; nothing was changed " + afterConflict)
                }
                if let old = rows[row.object]?.key { setObject(old, nil, &undo) }
                setRow(row.object, (loaded.key, loaded.version), &undo)
                setObject(loaded.key, row.object, &undo)
                remapped.insert(row.object)
                found.append((row, loaded))
            }
        }
        // Written over only where this commit's values differ (two imports of one page agree, and
        // then neither waits for the other's row); the version read must still hold. What this
        // graph left null on its new object (keys its payload lacked) keeps the other process's
        // value: a serial import of that payload would have left it as it was.
        var merged: [(row: StoreCommit.Row, version: Int64)] = []
        for (row, loaded) in found where !agrees(row, loaded) { merged.append((row, loaded.version)) }
        try rewriteRows(merged, keepingStoredWhereNull: true, places: places, undo: &undo)
        if !remapped.isEmpty {
            // New rows that link to one of those were written with the key it was given first.
            for row in commit.inserted where !remapped.contains(row.object) && row.links.contains(where: { $0.contains(where: remapped.contains) }) {
                rewrite.append((row, 1))
            }
        }
        for row in commit.updated where !columnNames[row.entity.index].isDisjoint(with: row.changed) {
            if let version = rows[row.object]?.version { rewrite.append((row, version)) }
        }
        try rewriteRows(rewrite, places: places, undo: &undo)
        // Rows not rewritten may still have moved in an owner's to-many (a row whose only change is a
        // many-to-many is not rewritten): their positions are written as moved rows' are.
        let rewritten = Set(rewrite.map(\.row.object))
        try writePositions(commit.moved + commit.updated.filter { !rewritten.contains($0.object) }, places: places)
        try reposition(commit.repositioned + placedAfter)
        // Owners whose lists changed on their targets' rows: a graph that holds such a list reads it again.
        for move in commit.listMoves {
            for owner in [move.left, move.joined] { if let owner, let key = rows[owner]?.key { announcement.changed(key) } }
        }
        let joinOwners = commit.inserted + commit.updated.filter { !joinNames[$0.entity.index].isDisjoint(with: $0.changed) }
        try writeJoins(joinOwners)
        // Every row written or inserted, and every row whose to-manys changed without a rewrite
        // (kept on its targets' rows, or only reordered): a graph holding it but not those
        // targets reads its lists again.
        for row in commit.inserted { if let key = rows[row.object]?.key { announcement.inserted(key) } }
        for (row, _) in rewrite { if let key = rows[row.object]?.key { announcement.changed(key) } }
        for row in commit.updated { if let key = rows[row.object]?.key { announcement.changed(key) } }
        try announcement.send(on: channel, from: origin, connection)
        return true
    }

    // MARK: Deletions

    private func delete(_ deleted: [(object: ObjectID, entity: Entity)], undo: inout KeyUndo,
                        announcement: inout Announcement) throws(MappingError) {
        var byRoot: [Int: [(object: ObjectID, key: Int64, version: Int64)]] = [:]
        for (object, entity) in deleted {
            guard let row = rows[object], layout.root.indices.contains(entity.index) else { continue }
            byRoot[layout.root[entity.index], default: []].append((object, row.key, row.version))
        }
        for (root, unordered) in byRoot.sorted(by: { $0.key < $1.key }) {
            guard let table = layout.tables[root] else { continue }
            let doomed = unordered.sorted { $0.key < $1.key }  // the order every process locks rows in
            let ids = StoreLayout.integerArray(doomed.map { StoreLayout.rowID(of: $0.key) })
            for (join, ends) in layout.joins.sorted(by: { $0.key < $1.key }) {
                if ends.owner == table.name { try connection.query("DELETE FROM \(quote(join)) WHERE \"owner\" = ANY($1::bigint[])", [ids]) }
                if ends.target == table.name { try connection.query("DELETE FROM \(quote(join)) WHERE \"target\" = ANY($1::bigint[])", [ids]) }
            }
            let result = try connection.query("DELETE FROM \(quote(table.name)) AS t USING unnest($1::bigint[], $2::bigint[]) AS v(id, version) "
                                              + "WHERE t.\"_id\" = v.id AND t.\"_version\" = v.version RETURNING t.\"_id\"",
                                              [ids, StoreLayout.integerArray(doomed.map(\.version))])
            guard result.count == doomed.count else {
                throw MappingError(.conflict, "another process changed or deleted \(doomed.count - Int(result.count)) of the \(doomed.count) "
                                   + "\(table.name) row(s) this commit deletes since this context read them; nothing was changed")
            }
            for victim in doomed {
                setRow(victim.object, nil, &undo)
                setObject(victim.key, nil, &undo)
                announcement.deleted(victim.key)
            }
            try dropLinksNoRuleClears(to: root, ids: ids, undo: &undo, announcement: &announcement)
        }
    }

    /// Clears the to-ones no delete rule clears (without an inverse, or whose inverse's rule is
    /// `noAction`) that still name rows of table `root` just deleted (`ids`): a graph keeps such a
    /// link as a handle that reads as nothing, so the database forgets it too (its foreign key
    /// would refuse the commit), in rows this graph may never have read. The rows cleared are new
    /// versions, announced.
    private func dropLinksNoRuleClears(to root: Int, ids: String, undo: inout KeyUndo, announcement: inout Announcement) throws(MappingError) {
        for (owner, table, column) in layout.linksNoRuleClears(to: root) {
            let result = try connection.query("UPDATE \(quote(table)) SET \(quote(column)) = NULL, \"_version\" = \"_version\" + 1 "
                                              + "WHERE \(quote(column)) = ANY($1::bigint[]) RETURNING \"_id\", \"_version\"", [ids])
            for row in 0..<result.count {
                guard case .integer(let id) = result.value(row: row, column: 0),
                      case .integer(let version) = result.value(row: row, column: 1) else { continue }
                let key = StoreLayout.globalKey(root: owner, id: id)
                if let object = objects[key] { setRow(object, (key, version), &undo) }
                announcement.changed(key)
            }
        }
    }

    // MARK: New rows

    /// Gives each new row an `_id` from its table's sequence (one query per table).
    private func assignKeys(_ inserted: [StoreCommit.Row], undo: inout KeyUndo) throws(MappingError) {
        var byRoot: [Int: [ObjectID]] = [:]
        for row in inserted where layout.root.indices.contains(row.entity.index) {
            byRoot[layout.root[row.entity.index], default: []].append(row.object)
        }
        for (root, list) in byRoot.sorted(by: { $0.key < $1.key }) {
            guard let table = layout.tables[root] else { continue }
            let result = try connection.query("SELECT nextval($1::regclass) FROM generate_series(1, $2::int)",
                                              [try sequence(of: root, table), String(list.count)])
            guard result.count == list.count else { throw MappingError(.store, "the store \(quote(schema)) gave out too few ids") }
            for (index, object) in list.enumerated() {
                guard case .integer(let id) = result.value(row: Int32(clamping: index), column: 0), id > 0, id < 1 << 48 else {
                    throw MappingError(.store, "the sequence of \(quote(table.name)) gave an id out of range")
                }
                let key = StoreLayout.globalKey(root: root, id: id)
                setRow(object, (key, 1), &undo)
                setObject(key, object, &undo)
            }
        }
    }

    /// The sequence a table's ids come from, looked up once (asked per row, the lookup cost more than
    /// the ids).
    private func sequence(of root: Int, _ table: StoreLayout.Table) throws(MappingError) -> String {
        if let known = sequences[root] { return known }
        let result = try connection.query("SELECT pg_get_serial_sequence($1, '_id')", [quote(schema) + "." + quote(table.name)])
        guard case .text(let name) = result.value(row: 0, column: 0) else {
            throw MappingError(.store, "the table \(quote(table.name)) of the store \(quote(schema)) has no id sequence")
        }
        sequences[root] = name
        return name
    }

    /// The rows other processes inserted under the identities of `list` (new rows of `entity` the
    /// database refused), in `list`'s order, read in one query; nil when one is not there (it was
    /// deleted again, or the conflict was not the identity's): the commit then runs again.
    private func existingRows(_ entity: Entity, _ list: [StoreCommit.Row]) throws(MappingError) -> [StoredObject]? {
        let root = layout.root[entity.index]
        guard entity.identityMap != nil, !entity.identification.isEmpty, layout.tables[root] != nil else { return nil }
        let columns = entity.identification.map { layout.attributeColumns[entity.index][$0] }
        var arrays = Array(repeating: ArrayText(), count: columns.count)
        for row in list {
            for (slot, value) in Self.identity(row.values, entity).enumerated() { arrays[slot].append(StoredValue(value)) }
        }
        let casts = entity.identification.enumerated().map { "$\($0.offset + 1)::" + layout.sqlType(entity.attributes[$0.element].type) + "[]" }
        let filter = "WHERE (\(columns.map(quote).joined(separator: ", "))) IN (SELECT * FROM unnest(\(casts.joined(separator: ", "))))"
        let parameters = arrays.map(\.literal)
        var reverse: [OwnerLink: [(position: Int64, target: Int64)]]?
        let loaded = try layout.rows(of: root, filter: filter, reverse: &reverse) {
            (sql) throws(MappingError) in try connection.query(sql, parameters)
        }
        var byIdentity: [[AttributeValue?]: StoredObject] = [:]
        for row in loaded { byIdentity[Self.identity(row.values, entity)] = row }
        var result: [StoredObject] = []
        for row in list {
            guard let existing = byIdentity[Self.identity(row.values, entity)] else { return nil }
            guard existing.entity == entity.index else {
                throw MappingError(.constraint, "another process stored a \(layout.model.entities[existing.entity].name) under this "
                                   + "\(entity.name)'s identity; nothing was changed", attribute: entity.name)
            }
            result.append(existing)
        }
        return result
    }

    /// A row's identification values, in order.
    private static func identity<Values: RandomAccessCollection<AttributeValue?>>(_ values: Values, _ entity: Entity) -> [AttributeValue?]
        where Values.Index == Int {
        entity.identification.map { values.indices.contains($0) ? values[$0] : nil }
    }

    /// Whether merging a new row into the row another process inserted under its identity would
    /// change nothing: each value and to-one the new row sets (non-null) is already the stored one.
    private func agrees(_ row: StoreCommit.Row, _ existing: StoredObject) -> Bool {
        for (index, value) in row.values.enumerated() where value != nil {
            guard existing.values.indices.contains(index), existing.values[index] == value else { return false }
        }
        for (index, relationship) in row.entity.relationships.enumerated() where !relationship.toMany {
            guard let mine = row.links.indices.contains(index) ? row.links.target(index).flatMap({ rows[$0]?.key }) : nil else { continue }
            let theirs = existing.links.indices.contains(index) ? existing.links[index].first : nil
            if mine != theirs { return false }
        }
        return true
    }

    // MARK: Rewritten rows

    /// Rewrites rows whose own columns changed, each only if its version is still the one this
    /// context read: otherwise another process changed it since, and the commit is a conflict.
    /// `keepingStoredWhereNull` (new rows merged into another process's row under their identity)
    /// writes only the columns the row sets, keeping the stored value where the row's is null.
    private func rewriteRows(_ rewrite: [(row: StoreCommit.Row, version: Int64)], keepingStoredWhereNull: Bool = false,
                             places: [ObjectID: [Int: Int]] = [:], undo: inout KeyUndo) throws(MappingError) {
        var seen: Set<ObjectID> = []
        let unique = rewrite.filter { seen.insert($0.row.object).inserted }
        var versions: [ObjectID: Int64] = [:]
        for (row, version) in unique { versions[row.object] = version }
        for (entity, list) in grouped(unique.map(\.row)) {
            let parameters = try columns(of: list, places: places,
                                         leading: { [.integer(StoreLayout.rowID(of: $0.key)), .integer(versions[$1] ?? 0)] })
            let result = try connection.query(updateStatement(entity, keepingStoredWhereNull: keepingStoredWhereNull), parameters)
            guard result.count == list.count else {
                throw MappingError(.conflict, "another process changed or deleted \(list.count - Int(result.count)) of the \(list.count) \(entity.name) "
                                   + "object(s) this commit changes since this context read them; nothing was changed " + afterConflict)
            }
            let root = layout.root[entity.index]
            for index in 0..<result.count {
                guard case .integer(let id) = result.value(row: index, column: 0),
                      case .integer(let version) = result.value(row: index, column: 1) else { continue }
                let key = StoreLayout.globalKey(root: root, id: id)
                if let object = objects[key] { setRow(object, (key, version), &undo) }
            }
        }
    }

    /// The `_id` of an object's row, if it has one.
    private func rowID(_ object: ObjectID) -> Int64? { (rows[object]?.key).map(StoreLayout.rowID) }

    /// Rows the graph has not read that moved within an owner's to-many: their position column,
    /// one statement per table and column however many moved (removing the first of a long list
    /// moves every other).
    private func reposition(_ moved: [StoreCommit.Repositioned]) throws(MappingError) {
        var byColumn: [[String]: (ids: ArrayText, positions: ArrayText)] = [:]
        for row in moved {
            let entity = row.entity.index
            guard let key = rows[row.object]?.key, layout.positionColumns.indices.contains(entity),
                  layout.positionColumns[entity].indices.contains(row.relationship),
                  let column = layout.positionColumns[entity][row.relationship], let table = layout.tables[layout.root[entity]] else { continue }
            var entry = byColumn[[table.name, column]] ?? (ArrayText(), ArrayText())
            entry.ids.append(StoreLayout.rowID(of: key))
            entry.positions.append(Int64(row.position))
            byColumn[[table.name, column]] = entry
        }
        for (place, entry) in byColumn.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            guard let table = place.first, let column = place.last else { continue }
            try connection.query("UPDATE \(quote(table)) AS t SET \(quote(column)) = v.p FROM unnest($1::bigint[], $2::bigint[]) "
                                 + "AS v(id, p) WHERE t.\"_id\" = v.id", [entry.ids.literal, entry.positions.literal])
        }
    }

    /// Rows whose only change is their place in an owner's to-many: their position columns, with
    /// no version check (an order two processes changed at once keeps the last one written).
    /// `places`: a row's new place in a list the graph has not read, which it joined.
    private func writePositions(_ moved: [StoreCommit.Row], places: [ObjectID: [Int: Int]]) throws(MappingError) {
        for (entity, list) in grouped(moved) {
            let positions = layout.positionColumns[entity.index].enumerated().compactMap { item in item.element.map { (item.offset, $0) } }
            guard !positions.isEmpty, let table = layout.tables[layout.root[entity.index]] else { continue }
            var arrays = [ArrayText()] + positions.map { _ in ArrayText() }
            for row in list {
                arrays[0].append(StoreLayout.rowID(of: rows[row.object]?.key ?? 0))
                for (slot, position) in positions.enumerated() {
                    let place = Self.place(of: row, position.0, places)
                    arrays[slot + 1].append(place.map { StoredValue.integer(Int64($0)) } ?? .null)
                }
            }
            let names = (0...positions.count).map { "c\($0)" }
            // Null where the owner's list is not read: the stored position stands.
            let sets = positions.enumerated().map { "\(quote($0.element.1)) = COALESCE(v.c\($0.offset + 1), t.\(quote($0.element.1)))" }
                .joined(separator: ", ")
            let casts = (0...positions.count).map { "$\($0 + 1)::bigint[]" }.joined(separator: ", ")
            try connection.query("UPDATE \(quote(table.name)) AS t SET \(sets) FROM unnest(\(casts)) AS v(\(names.joined(separator: ", "))) "
                                 + "WHERE t.\"_id\" = v.c0", arrays.map(\.literal))
        }
    }

    /// The to-manys kept in join tables, of new rows and of rows whose to-many changed: what the
    /// commit changed, against the list before it, and nothing else. The targets an owner lost are
    /// deleted, the ones it gained inserted, the ones that moved get their new position. What
    /// another process added or removed meanwhile stays as it did (a to-many two processes change
    /// at once keeps both changes, ordered by position, ties by target), so a join table needs no
    /// version check, and a stale graph cannot bring back a pair another process removed.
    private func writeJoins(_ owners: [StoreCommit.Row]) throws(MappingError) {
        typealias Pairs = (owners: ArrayText, targets: ArrayText, positions: ArrayText)
        var removed: [String: Pairs] = [:]
        var added: [String: Pairs] = [:]
        var moved: [String: Pairs] = [:]
        func note(_ pairs: inout [String: Pairs], _ join: String, _ owner: Int64, _ target: Int64, _ position: Int) {
            var entry = pairs[join] ?? (ArrayText(), ArrayText(), ArrayText())
            entry.owners.append(owner)
            entry.targets.append(target)
            entry.positions.append(Int64(position))
            pairs[join] = entry
        }
        for row in owners {
            guard let key = rows[row.object]?.key else { continue }
            let owner = StoreLayout.rowID(of: key)
            for (index, join) in layout.joinTables[row.entity.index].enumerated() {
                guard let join, row.links.indices.contains(index) else { continue }
                // An updated owner's to-manys the commit did not change are left alone.
                let relationships = row.entity.relationships
                if row.before != nil, !(relationships.indices.contains(index) && row.changed.contains(relationships[index].name)) { continue }
                let before = row.before.flatMap { $0.indices.contains(index) ? $0[index] : nil } ?? []
                var placeBefore: [ObjectID: Int] = [:]
                for (place, target) in before.enumerated() where placeBefore[target] == nil { placeBefore[target] = place }
                let targets = row.links[index]
                let now = Set(targets)
                for target in before where !now.contains(target) {
                    if let targetKey = rows[target]?.key { note(&removed, join, owner, StoreLayout.rowID(of: targetKey), 0) }
                }
                for (position, target) in targets.enumerated() {
                    guard let targetKey = rows[target]?.key else { continue }
                    if let place = placeBefore[target] {
                        if place != position { note(&moved, join, owner, StoreLayout.rowID(of: targetKey), position) }
                    } else {
                        note(&added, join, owner, StoreLayout.rowID(of: targetKey), position)
                    }
                }
            }
        }
        for (join, entry) in removed.sorted(by: { $0.key < $1.key }) where entry.owners.count > 0 {
            try connection.query("DELETE FROM \(quote(join)) AS j USING unnest($1::bigint[], $2::bigint[]) AS v(o, t) "
                                 + "WHERE j.\"owner\" = v.o AND j.\"target\" = v.t", [entry.owners.literal, entry.targets.literal])
        }
        for (join, entry) in added.sorted(by: { $0.key < $1.key }) where entry.owners.count > 0 {
            try connection.query("INSERT INTO \(quote(join)) (\"owner\", \"target\", \"position\") "
                                 + "SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) "
                                 + "ON CONFLICT (\"owner\", \"target\") DO UPDATE SET \"position\" = EXCLUDED.\"position\"",
                                 [entry.owners.literal, entry.targets.literal, entry.positions.literal])
        }
        for (join, entry) in moved.sorted(by: { $0.key < $1.key }) where entry.owners.count > 0 {
            // Only pairs still there: one another process removed stays removed.
            try connection.query("UPDATE \(quote(join)) AS j SET \"position\" = v.p FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) "
                                 + "AS v(o, t, p) WHERE j.\"owner\" = v.o AND j.\"target\" = v.t",
                                 [entry.owners.literal, entry.targets.literal, entry.positions.literal])
        }
    }

    // MARK: Statements

    /// Rows by entity, in the order entities are declared, and within an entity in one order every
    /// process agrees on: by identity, else by key. Processes that insert or rewrite the same rows
    /// at once then wait for each other's rows in the same order, never in a cycle (a deadlock,
    /// which PostgreSQL breaks only after its deadlock_timeout).
    private func grouped(_ list: [StoreCommit.Row]) -> [(Entity, [StoreCommit.Row])] {
        var byEntity: [Int: [StoreCommit.Row]] = [:]
        for row in list { byEntity[row.entity.index, default: []].append(row) }
        return byEntity.sorted { $0.key < $1.key }.compactMap { item in
            guard let entity = item.value.first?.entity else { return nil }
            let keyed = item.value.map { row in
                (row: row, identity: Self.identity(row.values, entity).map(StoredValue.init),
                 key: rows[row.object]?.key ?? 0)
            }
            let ordered = keyed.sorted { left, right in
                if left.identity != right.identity { return Self.precedes(left.identity, right.identity) }
                return left.key < right.key
            }
            return (entity, ordered.map(\.row))
        }
    }

    /// A total order on identities: value by value, nulls, then numbers, then text.
    private static func precedes(_ left: [StoredValue], _ right: [StoredValue]) -> Bool {
        for (a, b) in zip(left, right) where a != b {
            switch (a, b) {
            case (.integer(let x), .integer(let y)): return x < y
            case (.real(let x), .real(let y)): return x < y || (x.isNaN && !y.isNaN)
            case (.text(let x), .text(let y)): return x < y
            default: return rank(a) < rank(b)
            }
        }
        return left.count < right.count
    }

    private static func rank(_ value: StoredValue) -> Int {
        switch value {
        case .null, .invalidText: 0
        case .integer: 1
        case .real: 2
        case .text: 3
        }
    }

    /// An entity's columns after `_id` (and `_entity` or `_version`): attributes, to-ones, positions.
    private func rowColumns(_ entity: Entity) -> [String] {
        layout.attributeColumns[entity.index] + layout.linkColumns[entity.index].compactMap { $0 }
            + layout.positionColumns[entity.index].compactMap { $0 }
    }

    /// A row's place in the to-many `relationship` (its to-one's inverse): as the graph has it,
    /// else the one `places` gives for a list the graph has not read; nil: the stored one stands.
    private static func place(of row: StoreCommit.Row, _ relationship: Int, _ places: [ObjectID: [Int: Int]]) -> Int? {
        (row.positions.indices.contains(relationship) ? row.positions[relationship] : nil) ?? places[row.object]?[relationship]
    }

    /// Each column of `list`'s rows as one array parameter: the two `leading` values of each row
    /// (given its key and object), then its attributes, to-one keys and positions (`places`: new
    /// places in lists the graph has not read).
    private func columns(of list: [StoreCommit.Row], places: [ObjectID: [Int: Int]] = [:],
                         leading: ((key: Int64, version: Int64), ObjectID) -> [StoredValue]) throws(MappingError) -> [String?] {
        guard let first = list.first else { return [] }
        let entity = first.entity
        let attributes = layout.attributeColumns[entity.index].count
        let links = layout.linkColumns[entity.index].enumerated().compactMap { $0.element == nil ? nil : $0.offset }
        let positions = layout.positionColumns[entity.index].enumerated().compactMap { $0.element == nil ? nil : $0.offset }
        var arrays = Array(repeating: ArrayText(), count: 2 + attributes + links.count + positions.count)
        for row in list {
            guard let stored = rows[row.object] else { throw MappingError(.failed, "a row of the commit has no key") }
            var column = 0
            for value in leading(stored, row.object).prefix(2) {
                arrays[column].append(value)
                column += 1
            }
            for index in 0..<attributes {
                arrays[column].append(StoredValue(row.values.indices.contains(index) ? row.values[index] : nil))
                column += 1
            }
            for index in links {
                let target = row.links.indices.contains(index) ? row.links.target(index).flatMap { rows[$0]?.key } : nil
                arrays[column].append(target.map { StoredValue.integer(StoreLayout.rowID(of: $0)) } ?? .null)
                column += 1
            }
            for index in positions {
                let place = Self.place(of: row, index, places)
                arrays[column].append(place.map { StoredValue.integer(Int64($0)) } ?? .null)
                column += 1
            }
        }
        return arrays.map(\.literal)
    }

    /// Each array parameter's cast, in `columns(of:)` order after the two leading ones.
    private func casts(_ entity: Entity, leading: [String]) -> [String] {
        let table = layout.tables[layout.root[entity.index]]
        var types: [String: String] = [:]
        if let table { for (index, column) in table.columns.enumerated() { types[column] = table.types[index] } }
        return (leading + rowColumns(entity).map { types[$0] ?? "TEXT" }).enumerated().map { "$\($0.offset + 1)::\($0.element)[]" }
    }

    private func insertStatement(_ entity: Entity) -> String {
        let table = layout.tables[layout.root[entity.index]]?.name ?? entity.name
        let columns = ["\"_id\"", "\"_entity\""] + rowColumns(entity).map(quote)
        return "INSERT INTO \(quote(table)) (\(columns.joined(separator: ", "))) SELECT * FROM unnest("
            + casts(entity, leading: ["BIGINT", "TEXT"]).joined(separator: ", ") + ") ON CONFLICT DO NOTHING RETURNING \"_id\""
    }

    private func updateStatement(_ entity: Entity, keepingStoredWhereNull: Bool) -> String {
        let table = layout.tables[layout.root[entity.index]]?.name ?? entity.name
        let columns = rowColumns(entity)
        let names = (0..<(columns.count + 2)).map { "c\($0)" }
        // A row's position is null when its owner's list is not read: the stored one stands.
        let positions = Set(layout.positionColumns[entity.index].compactMap { $0 })
        let sets = columns.enumerated().map { column in
            let value = "v.c\(column.offset + 2)"
            let keeps = keepingStoredWhereNull || positions.contains(column.element)
            return "\(quote(column.element)) = " + (keeps ? "COALESCE(\(value), t.\(quote(column.element)))" : value)
        } + ["\"_version\" = t.\"_version\" + 1"]
        return "UPDATE \(quote(table)) AS t SET \(sets.joined(separator: ", ")) FROM unnest("
            + casts(entity, leading: ["BIGINT", "BIGINT"]).joined(separator: ", ") + ") AS v(\(names.joined(separator: ", "))) "
            + "WHERE t.\"_id\" = v.c0 AND t.\"_version\" = v.c1 RETURNING t.\"_id\", t.\"_version\""
    }
}
