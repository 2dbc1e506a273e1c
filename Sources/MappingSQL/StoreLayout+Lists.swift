import MappingCore

/// How a commit changes one-to-manys the graph has not read (`StoreCommit.listMoves`,
/// `StoreCommit.unlinked`), as statements written with `?` that both databases run: the stores
/// differ only in how they run them and how they know a row's key.
extension StoreLayout {
    /// The table, to-one column and position column that keep a list move's one-to-many.
    package func listColumns(_ move: StoreCommit.ListMove) -> (table: String, link: String, position: String)? {
        listColumns(entity: move.entity.index, relationship: move.relationship)
    }

    /// The same for a to-one `relationship` of `entity` whose inverse is a to-many.
    package func listColumns(entity: Int, relationship: Int) -> (table: String, link: String, position: String)? {
        guard linkColumns.indices.contains(entity), linkColumns[entity].indices.contains(relationship),
              let link = linkColumns[entity][relationship], let position = positionColumns[entity][relationship],
              root.indices.contains(entity), let table = tables[root[entity]] else { return nil }
        return (table.name, link, position)
    }

    /// Closing the place a row (`_id` `id`) leaves in `owner`'s list: the rows after it move up, and
    /// the row holds no place until it is written (so the lists it joins do not count it).
    package func closingPlace(_ move: StoreCommit.ListMove, owner: Int64, id: Int64) -> [(sql: String, values: [StoredValue])] {
        guard let (table, link, position) = listColumns(move) else { return [] }
        return [("UPDATE \(quote(table)) SET \(quote(position)) = \(quote(position)) - 1 WHERE \(quote(link)) = ? AND "
                 + "\(quote(position)) > (SELECT \(quote(position)) FROM \(quote(table)) WHERE \"_id\" = ? AND \(quote(link)) = ?)",
                 [.integer(owner), .integer(id), .integer(owner)]),
                ("UPDATE \(quote(table)) SET \(quote(position)) = NULL WHERE \"_id\" = ?", [.integer(id)])]
    }

    /// Clearing the to-one (and position) of a row not read that left `owner`'s list, where it still
    /// names that owner (PostgreSQL's version moves on, as for any change to a row).
    package func unlinking(_ row: StoreCommit.Unlinked, owner: Int64, id: Int64) -> (sql: String, values: [StoredValue])? {
        guard let (table, link, position) = listColumns(entity: row.entity.index, relationship: row.relationship) else { return nil }
        let version = dialect == .postgres ? ", \"_version\" = \"_version\" + 1" : ""
        return ("UPDATE \(quote(table)) SET \(quote(link)) = NULL, \(quote(position)) = NULL\(version) WHERE \"_id\" = ? AND \(quote(link)) = ?",
                [.integer(id), .integer(owner)])
    }

    /// The places of rows joining lists the graph has not read: after each list's last, in the
    /// order they joined. `owner` gives a row's `_id`; `first` runs a query of one value (the
    /// place after the list's last). Asked before any row is written, so the joining rows are not
    /// counted.
    package func placesAtEnd(_ moves: [StoreCommit.ListMove], owner: (ObjectID) -> Int64?,
                             first: (String, [StoredValue]) throws(MappingError) -> StoredValue?) throws(MappingError) -> [StoreCommit.Repositioned] {
        var next: [String: Int64] = [:]
        var places: [StoreCommit.Repositioned] = []
        for move in moves {
            guard let joined = move.joined, let id = owner(joined), let (table, link, position) = listColumns(move) else { continue }
            let list = "\(table).\(link).\(id)"
            if next[list] == nil {
                guard case .integer(let after) = try first("SELECT coalesce(max(\(quote(position))), -1) + 1 FROM \(quote(table)) "
                                                           + "WHERE \(quote(link)) = ?", [.integer(id)]) else {
                    throw MappingError(.store, "cannot read the positions of \(quote(table)).\(quote(position))")
                }
                next[list] = after
            }
            let place = next[list] ?? 0
            // A position at the top of the range is a store changed by hand, not a list that long.
            let (following, overflow) = place.addingReportingOverflow(1)
            guard !overflow else {
                throw MappingError(.store, "\(quote(table)).\(quote(position)) holds a position no list reaches: the store was changed outside libmapping")
            }
            next[list] = following
            places.append(.init(object: move.object, entity: move.entity, relationship: move.relationship,
                                position: Int(truncatingIfNeeded: place)))
        }
        return places
    }
}
