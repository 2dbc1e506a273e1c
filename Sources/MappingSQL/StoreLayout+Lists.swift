import MappingCore

/// How a commit changes one-to-manys the graph has not read (`StoreCommit.listMoves`,
/// `StoreCommit.unlinked`), as statements written with `?` that both databases run: the stores
/// differ only in how they run them and how they know a row's key.
///
/// A one-to-many's positions keep its order; they need not be 0…n-1. A row leaving a list the
/// graph has not read leaves a gap rather than moving every row after it up: closing the place
/// cost a write per row after it, so a page moving people between companies of 500 staff wrote
/// about 250 rows per move. A graph that reads a list numbers its targets 0…n-1 and writes the
/// places that change from those numbers, so a list read with gaps (`UnevenList`) is renumbered
/// to them in the database, in its order, by the next commit, before anything else is written.
extension StoreLayout {
    /// The statements on one one-to-many kept on its targets' rows (a to-one column and its
    /// position column), written once per layout: a commit runs them per row, and writing their
    /// text each time (quoting every name) was a visible share of a commit.
    package struct ListStatements: Sendable {
        /// The list's rows numbered 0…n-1 in its order (owner).
        let renumbering: String
        /// The leaving row holds no place until it is written (its `_id`; PostgreSQL: an array of
        /// them).
        let clearing: String
        /// A row that left the owner's list names no owner (`_id`, owner).
        let unlinking: String
        /// The place after the list's last (owner; PostgreSQL: owner and place for an array of
        /// owners, those with rows).
        let end: String
        /// Table and position column, for errors.
        let place: String

        init(table: String, link: String, position: String, dialect: Dialect) {
            let (table, link, position) = (quote(table), quote(link), quote(position))
            // The order a list is read in (`StoreLoader`): by place, a row without one at its
            // `_id`, ties by `_id`. Only the rows whose place changes are written.
            renumbering = "UPDATE \(table) SET \(position) = \"numbered\".\"place\" FROM (SELECT \"_id\", "
                + "row_number() OVER (ORDER BY coalesce(\(position), \"_id\"), \"_id\") - 1 AS \"place\" FROM \(table) "
                + "WHERE \(link) = ?) AS \"numbered\" WHERE \(table).\"_id\" = \"numbered\".\"_id\" AND \(table).\(position) "
                + (dialect == .postgres ? "IS DISTINCT FROM" : "IS NOT") + " \"numbered\".\"place\""
            // PostgreSQL takes a commit's rows as arrays, one statement for all (a round trip each
            // was most of a page's moves); SQLite's statements cost no round trip.
            clearing = "UPDATE \(table) SET \(position) = NULL WHERE \"_id\" " + (dialect == .postgres ? "= ANY(?::BIGINT[])" : "= ?")
            let version = dialect == .postgres ? ", \"_version\" = \"_version\" + 1" : ""
            unlinking = "UPDATE \(table) SET \(link) = NULL, \(position) = NULL\(version) WHERE \"_id\" = ? AND \(link) = ?"
            end = dialect == .postgres
                ? "SELECT \(link), max(\(position)) + 1 FROM \(table) WHERE \(link) = ANY(?::BIGINT[]) GROUP BY \(link)"
                : "SELECT coalesce(max(\(position)), -1) + 1 FROM \(table) WHERE \(link) = ?"
            place = "\(table).\(position)"
        }
    }

    /// Per entity, per relationship: the statements of a to-one whose inverse is a to-many.
    static func listStatements(tables: [Int: Table], root: [Int], links: [[String?]], positions: [[String?]],
                               dialect: Dialect) -> [[ListStatements?]] {
        links.indices.map { entity in
            links[entity].indices.map { relationship -> ListStatements? in
                guard let link = links[entity][relationship], positions[entity].indices.contains(relationship),
                      let position = positions[entity][relationship], root.indices.contains(entity),
                      let table = tables[root[entity]] else { return nil }
                return ListStatements(table: table.name, link: link, position: position, dialect: dialect)
            }
        }
    }

    /// The statements of a to-one `relationship` of `entity` whose inverse is a to-many.
    package func listStatements(entity: Int, relationship: Int) -> ListStatements? {
        guard listStatements.indices.contains(entity), listStatements[entity].indices.contains(relationship) else { return nil }
        return listStatements[entity][relationship]
    }

    /// The places rows leave in lists (`id` gives a row's `_id`): they hold none until they are
    /// written (so the lists they join do not count them); the rows after them keep theirs. A
    /// statement per row (SQLite), or per list column (PostgreSQL).
    package func leavingPlaces(_ moves: [StoreCommit.ListMove], id: (ObjectID) -> Int64?) -> [(sql: String, values: [StoredValue])] {
        var leaving: [String: (sql: String, ids: [Int64])] = [:]
        var statements: [(sql: String, values: [StoredValue])] = []
        for move in moves {
            guard move.left != nil, let row = id(move.object),
                  let list = listStatements(entity: move.entity.index, relationship: move.relationship) else { continue }
            if dialect == .postgres {
                leaving[list.place, default: (list.clearing, [])].ids.append(row)
            } else {
                statements.append((list.clearing, [.integer(row)]))
            }
        }
        return statements + leaving.sorted { $0.key < $1.key }.map { ($0.value.sql, [.text(Self.integerArray($0.value.ids))]) }
    }

    /// Integers as a PostgreSQL array literal (`{1,2,3}`), for a statement's array parameter.
    package static func integerArray(_ numbers: [Int64]) -> String { "{" + numbers.map(String.init).joined(separator: ",") + "}" }

    /// Numbering a list read with gaps 0…n-1 in its order, as the graph numbered it.
    package func renumbering(_ list: UnevenList) -> (sql: String, values: [StoredValue])? {
        guard let statements = listStatements(entity: list.entity, relationship: list.relationship) else { return nil }
        return (statements.renumbering, [.integer(list.owner)])
    }

    /// Clearing the to-one (and position) of a row not read that left `owner`'s list, where it still
    /// names that owner (PostgreSQL's version moves on, as for any change to a row).
    package func unlinking(_ row: StoreCommit.Unlinked, owner: Int64, id: Int64) -> (sql: String, values: [StoredValue])? {
        guard let list = listStatements(entity: row.entity.index, relationship: row.relationship) else { return nil }
        return (list.unlinking, [.integer(id), .integer(owner)])
    }

    /// The places of rows joining lists the graph has not read: after each list's last, in the
    /// order they joined. `owner` gives a row's `_id`; `rows` runs a query and gives its rows. The
    /// lists' ends are asked before any row is written, so the joining rows are not counted: a
    /// query per list (SQLite), or per list column (PostgreSQL, every owner in one array).
    package func placesAtEnd(_ moves: [StoreCommit.ListMove], owner: (ObjectID) -> Int64?,
                             rows: (String, [StoredValue]) throws(MappingError) -> [[StoredValue]]) throws(MappingError) -> [StoreCommit.Repositioned] {
        // Each list joined once (entities sharing a table share the column).
        var joined: [String: (statements: ListStatements, owners: [Int64])] = [:]
        var seen: Set<ListEnd> = []
        for move in moves {
            guard let target = move.joined, let id = owner(target),
                  let statements = listStatements(entity: move.entity.index, relationship: move.relationship) else { continue }
            if seen.insert(ListEnd(place: statements.place, owner: id)).inserted {
                joined[statements.place, default: (statements, [])].owners.append(id)
            }
        }
        var next: [ListEnd: Int64] = [:]
        for (place, (statements, owners)) in joined.sorted(by: { $0.key < $1.key }) {
            let unreadable = MappingError(.store, "cannot read the positions of \(statements.place)")
            if dialect == .postgres {
                for row in try rows(statements.end, [.text(Self.integerArray(owners))]) {
                    guard row.count == 2, case .integer(let id) = row[0] else { throw unreadable }
                    switch row[1] {
                    case .integer(let after): next[ListEnd(place: place, owner: id)] = after
                    case .null: break  // every row of the list without a place: it starts at 0
                    default: throw unreadable
                    }
                }
            } else {
                for id in owners {
                    guard case .integer(let after)? = try rows(statements.end, [.integer(id)]).first?.first else { throw unreadable }
                    next[ListEnd(place: place, owner: id)] = after
                }
            }
        }
        var places: [StoreCommit.Repositioned] = []
        for move in moves {
            guard let target = move.joined, let id = owner(target),
                  let statements = listStatements(entity: move.entity.index, relationship: move.relationship) else { continue }
            let list = ListEnd(place: statements.place, owner: id)
            let place = next[list] ?? 0
            // A position at the top of the range is a store changed by hand, not a list that long.
            let (following, overflow) = place.addingReportingOverflow(1)
            guard !overflow else {
                throw MappingError(.store, "\(statements.place) holds a position no list reaches: the store was changed outside libmapping")
            }
            next[list] = following
            places.append(.init(object: move.object, entity: move.entity, relationship: move.relationship,
                                position: Int(truncatingIfNeeded: place)))
        }
        return places
    }

    /// Whether the places of a list read (in order) are 0…n-1.
    static func isEven(_ places: [(position: Int64, target: Int64)]) -> Bool {
        var expected: Int64 = 0
        for (position, _) in places {
            guard position == expected else { return false }
            expected += 1
        }
        return true
    }

    /// One owner's list in `placesAtEnd`.
    private struct ListEnd: Hashable {
        let place: String
        let owner: Int64
    }
}

/// A one-to-many read whose places are not 0…n-1: the to-one `relationship` of `entity` (the
/// list's targets) that keeps it, and the owner's `_id`. The store renumbers it at its next commit.
package struct UnevenList: Hashable, Sendable {
    package let entity: Int
    package let relationship: Int
    package let owner: Int64
}

extension StoreLayout {
    /// The to-one columns that can name a row of table `root` and that no delete rule clears when
    /// that row is deleted — those without an inverse, and those whose inverse's rule is
    /// `noAction` — as (the root of the table holding the column, its table, the column), each
    /// once. When rows of `root` are deleted, a store clears them in rows the graph may never have
    /// read (the graph reads such a link as none), or a later row given a deleted row's `_id`
    /// would be linked in its place.
    package func linksNoRuleClears(to root: Int) -> [(owner: Int, table: String, column: String)] {
        var found: [(owner: Int, table: String, column: String)] = []
        var seen: Set<[String]> = []
        for entity in model.entities where self.root.indices.contains(entity.index) {
            for (index, relationship) in entity.relationships.enumerated()
            where !relationship.toMany && (relationship.inverse == nil || model.inverse(of: relationship)?.deleteRule == .noAction)
                && self.root.indices.contains(relationship.destination) && self.root[relationship.destination] == root {
                guard let table = tables[self.root[entity.index]]?.name, linkColumns[entity.index].indices.contains(index),
                      let column = linkColumns[entity.index][index], seen.insert([table, column]).inserted else { continue }
                found.append((self.root[entity.index], table, column))
            }
        }
        return found
    }
}

/// Where a commit writes the places of rows in lists the graph has not read, the same for both
/// databases. A row the commit writes anyway (a new row's INSERT, an updated or moved row's UPDATE)
/// carries its new place in that statement: a statement clearing its old place first and one
/// writing the new place after were two more writes of the row (on PostgreSQL two more versions of
/// it, with their index entries). Its old place is still cleared first where it leaves for no list
/// (a store's UPDATE writes a position only where it has one), or leaves a list rows join in this
/// commit, so that the place after that list's last does not count it.
package struct UnreadListPlaces {
    /// The rows whose own INSERT or UPDATE carries their place.
    private let placed: Set<ObjectID>
    /// The moves whose old place a statement clears before any row is written (`leavingPlaces`).
    package let clearedFirst: [StoreCommit.ListMove]

    package init(_ commit: StoreCommit) {
        guard !commit.listMoves.isEmpty else {
            placed = []
            clearedFirst = []
            return
        }
        let rewritten = Set(commit.updated.map(\.object) + commit.moved.map(\.object))
        let joining = Set(commit.listMoves.compactMap(\.joined))
        clearedFirst = commit.listMoves.filter {
            !rewritten.contains($0.object) || $0.joined == nil || $0.left.map(joining.contains) == true
        }
        placed = rewritten.union(commit.inserted.map(\.object))
    }

    /// The places at the ends of the lists joined (`StoreLayout.placesAtEnd`), split: by row, those
    /// the rows' own statements carry (relationship index to place), and those a statement writes after.
    package func split(_ appended: [StoreCommit.Repositioned]) -> (own: [ObjectID: [Int: Int]], after: [StoreCommit.Repositioned]) {
        var own: [ObjectID: [Int: Int]] = [:]
        var after: [StoreCommit.Repositioned] = []
        for moved in appended {
            if placed.contains(moved.object) {
                own[moved.object, default: [:]][moved.relationship] = moved.position
            } else {
                after.append(moved)
            }
        }
        return (own, after)
    }
}
