import MappingCore

/// A query's rows as a database hands them out, one at a time.
package protocol StoredRows: AnyObject {
    /// Moves to the next row: false when there is none.
    func step() throws(MappingError) -> Bool
    func column(_ index: Int32) -> StoredValue
    /// Whether a column holds text of exactly these bytes (no String made to compare).
    func column(_ index: Int32, is bytes: [UInt8]) -> Bool
    /// Ends the query (its read of the database).
    func finish()
}

/// A to-many read back from the to-one column of its targets: owner and relationship.
package struct OwnerLink: Hashable {
    package let owner: Int64
    package let relationship: Int
}

extension StoreLayout {
    /// An object's key across the whole store: its table (the root entity's index) in the high bits,
    /// its `_id` in the low 48.
    package static func globalKey(root: Int, id: Int64) -> Int64 { Int64(truncatingIfNeeded: root) << 48 | (id & 0xFFFF_FFFF_FFFF) }
    package static func rowID(of key: Int64) -> Int64 { key & 0xFFFF_FFFF_FFFF }
    package static func root(of key: Int64) -> Int { Int(truncatingIfNeeded: key >> 48) }

    /// Every object in the store, with its values and the keys of its targets, in `_id` order per
    /// table (creation order: a graph reopened lists its objects as it did before). Lists whose
    /// places have gaps are noted in `uneven`.
    package func load<Rows: StoredRows>(uneven: inout Set<UnevenList>,
                                        _ query: (String) throws(MappingError) -> Rows) throws(MappingError) -> [StoredObject] {
        let toMany = try joinTargets(query)
        var reverse: [OwnerLink: [(position: Int64, target: Int64)]]? = [:]
        var rows: [StoredObject] = []
        for rootIndex in tables.keys.sorted() {
            try self.rows(of: rootIndex, filter: "", reverse: &reverse, into: &rows, query)
        }
        rows = withToManys(rows, joined: toMany, kept: reverse ?? [:], uneven: &uneven)
        try checkLinks(rows)
        try checkIdentities(rows)
        return rows
    }

    /// `rows` with their to-manys filled: those kept in join tables from `joined` (targets by
    /// owner `_id`, in order, by join table), those kept on their targets' to-one columns from
    /// `kept` (by owner, with positions) in position order (ties by key: creation order); lists
    /// with gaps are noted in `uneven`. Rows come from `rows(of:filter:…)` with these lists empty.
    private func withToManys(_ rows: [StoredObject], joined: [String: [Int64: [Int64]]],
                             kept: [OwnerLink: [(position: Int64, target: Int64)]],
                             uneven: inout Set<UnevenList>) -> [StoredObject] {
        guard !joined.isEmpty || !kept.isEmpty else { return rows }
        return rows.map { row in
            var row = row
            for (index, relationship) in model.entities[row.entity].relationships.enumerated()
            where relationship.toMany && row.links.indices.contains(index) {
                if let join = joinTables[row.entity][index] {
                    let targetRoot = root[relationship.destination]
                    row.links[index] = (joined[join]?[Self.rowID(of: row.key)] ?? []).map { Self.globalKey(root: targetRoot, id: $0) }
                } else if !kept.isEmpty {
                    row.links[index] = ordered(kept[OwnerLink(owner: row.key, relationship: index)] ?? [], of: relationship,
                                               owner: row.key, uneven: &uneven)
                }
            }
            return row
        }
    }

    /// One list's targets in position order (ties by key: creation order), noted in `uneven` when
    /// its places are not 0…n-1; `inOrder`: `held` is in that order already.
    private func ordered(_ held: [(position: Int64, target: Int64)], of relationship: Relationship, owner: Int64,
                         inOrder: Bool = false, uneven: inout Set<UnevenList>) -> [Int64] {
        let sorted = inOrder ? held : held.sorted { ($0.position, $0.target) < ($1.position, $1.target) }
        if !Self.isEven(sorted), let inverse = relationship.inverse {
            uneven.insert(UnevenList(entity: relationship.destination, relationship: inverse, owner: Self.rowID(of: owner)))
        }
        return sorted.map(\.target)
    }

    /// The rows of one table with these `_id`s (at most `maxBatch`), like `load`'s but read by key:
    /// their to-manys from their join tables and from the to-one columns of their targets, in
    /// order. `query` runs a statement with the ids bound to its `?`s, in order; the id list is
    /// padded to a few fixed lengths (repeating its last id), so a database keeps few statements.
    package func rows<Rows: StoredRows>(root rootIndex: Int, ids: [Int64], lists: Bool = true, uneven: inout Set<UnevenList>,
                                        _ query: (String, [StoredValue]) throws(MappingError) -> Rows) throws(MappingError) -> [StoredObject] {
        guard !ids.isEmpty, ids.count <= Self.maxBatch else { return [] }
        let (marks, bound) = Self.padded(ids)
        let run = { (sql: String) throws(MappingError) -> Rows in try query(sql, bound) }
        var ignored: [OwnerLink: [(position: Int64, target: Int64)]]?
        let rows = try rows(of: rootIndex, filter: "WHERE \"_id\" IN (\(marks))", reverse: &ignored, run)
        return try withToManys(rows, of: rootIndex, marks: marks, lists: lists, uneven: &uneven, run)
    }

    /// The rows of `entity`'s table that hold these identities (one after another, as
    /// `identityFilters` takes them), in `_id` order, as `rows(root:ids:lists: false)` reads rows:
    /// found through the identification's unique index by the query that reads them, not by a
    /// query for their keys first.
    package func rows<Rows: StoredRows>(of entity: Entity, identities: [AttributeValue], uneven: inout Set<UnevenList>,
                                        _ query: (String, [StoredValue]) throws(MappingError) -> Rows) throws(MappingError) -> [StoredObject] {
        guard root.indices.contains(entity.index) else { return [] }
        let rootIndex = root[entity.index]
        var found: [StoredObject] = []
        var ignored: [OwnerLink: [(position: Int64, target: Int64)]]?
        for (filter, values) in identityFilters(entity, identities) {
            try rows(of: rootIndex, filter: filter, inKeyOrder: false, reverse: &ignored, into: &found) { (sql: String) throws(MappingError) -> Rows in
                try query(sql, values)
            }
        }
        found.sort { $0.key < $1.key }
        // Their to-manys kept in join tables, by their ids, a batch at a time; a table without such
        // lists reads nothing more, and its rows are returned as read.
        let joins = model.entities.contains { root[$0.index] == rootIndex && joinTables[$0.index].contains { $0 != nil } }
        guard joins else { return found }
        var rows: [StoredObject] = []
        rows.reserveCapacity(found.count)
        var start = 0
        while start < found.count {
            let batch = Array(found[start..<min(start + Self.maxBatch, found.count)])
            start += Self.maxBatch
            let (marks, bound) = Self.padded(batch.map { Self.rowID(of: $0.key) })
            rows += try withToManys(batch, of: rootIndex, marks: marks, lists: false, uneven: &uneven) { (sql: String) throws(MappingError) -> Rows in
                try query(sql, bound)
            }
        }
        return rows
    }

    /// `rows` (of table `rootIndex`, whose ids fill `marks`) with their to-manys read: those kept
    /// in join tables, and with `lists` those kept on their targets' to-one columns.
    private func withToManys<Rows: StoredRows>(_ rows: [StoredObject], of rootIndex: Int, marks: String, lists: Bool,
                                               uneven: inout Set<UnevenList>,
                                               _ run: (String) throws(MappingError) -> Rows) throws(MappingError) -> [StoredObject] {
        var joined: [String: [Int64: [Int64]]] = [:]
        var kept: [OwnerLink: [(position: Int64, target: Int64)]] = [:]
        for entity in model.entities where root[entity.index] == rootIndex {
            for (index, relationship) in entity.relationships.enumerated() where relationship.toMany {
                if let join = joinTables[entity.index][index] {
                    if joined[join] == nil {
                        joined[join] = try joinTargets(run, joins: [join], filter: "WHERE \"owner\" IN (\(marks))")[join] ?? [:]
                    }
                } else if lists {
                    try inverseTargets(of: relationship, ownerRoot: rootIndex, marks: marks, run) { owner, held, _ in
                        kept[OwnerLink(owner: owner, relationship: index)] = held
                    }
                }
            }
        }
        return withToManys(rows, joined: joined, kept: kept, uneven: &uneven)
    }

    /// The targets of one-to-many `index` of `entity` (kept on its targets' to-one column) for
    /// the owners with these `_id`s (at most `maxBatch`), in position order (ties by key), added
    /// to `lists` by owner key; lists with gaps are noted in `uneven`.
    package func lists<Rows: StoredRows>(of entity: Entity, relationship index: Int, ids: [Int64], into lists: inout [Int64: [Int64]],
                                         uneven: inout Set<UnevenList>,
                                         _ query: (String, [StoredValue]) throws(MappingError) -> Rows) throws(MappingError) {
        guard !ids.isEmpty, ids.count <= Self.maxBatch, root.indices.contains(entity.index),
              entity.relationships.indices.contains(index) else { return }
        let relationship = entity.relationships[index]
        let (marks, bound) = Self.padded(ids)
        try inverseTargets(of: relationship, ownerRoot: root[entity.index], marks: marks, { (sql: String) throws(MappingError) -> Rows in
            try query(sql, bound)
        }) { owner, held, inOrder in
            lists[owner] = ordered(held, of: relationship, owner: owner, inOrder: inOrder, uneven: &uneven)
        }
    }

    /// One attribute of `entity` for the rows with these `_id`s (at most `maxBatch`, or any number
    /// that is dense: `batches(_:wholeWhenDense:)`), by key, checked as `rows` checks it; rows that
    /// are gone are left out. Dense ids are read in one range of the primary key, the rows between
    /// them skipped: a fetch's result of 10,000 consecutive rows is one query, not twenty IN lists.
    package func column<Rows: StoredRows>(_ attribute: Int, of entity: Entity, ids: [Int64],
                                          _ query: (String, [StoredValue]) throws(MappingError) -> Rows) throws(MappingError) -> [Int64: AttributeValue?] {
        let dense = Self.denseRange(ids)
        guard !ids.isEmpty, ids.count <= Self.maxBatch || dense != nil, root.indices.contains(entity.index),
              let table = tables[root[entity.index]], attributeColumns.indices.contains(entity.index),
              attributeColumns[entity.index].indices.contains(attribute), entity.attributes.indices.contains(attribute) else { return [:] }
        let column = attributeColumns[entity.index][attribute]
        let select = "SELECT \"_id\", \(quote(column)) FROM \(quote(table.name)) WHERE \"_id\" "
        let cursor: Rows
        var wanted: Set<Int64>? = nil
        if let dense {
            cursor = try query(select + "BETWEEN ? AND ?", [.integer(dense.low), .integer(dense.high)])
            wanted = Set(ids)
        } else {
            let (marks, bound) = Self.padded(ids)
            cursor = try query(select + "IN (\(marks))", bound)
        }
        defer { cursor.finish() }
        var found: [Int64: AttributeValue?] = [:]
        found.reserveCapacity(ids.count)
        while try cursor.step() {
            guard case .integer(let id) = cursor.column(0), id > 0, id < 1 << 48 else {
                throw MappingError(.store, "a row of \(quote(table.name)) has an _id out of range")
            }
            if let wanted, !wanted.contains(id) { continue }
            do {
                found[Self.globalKey(root: root[entity.index], id: id)] = try cursor.column(1).attribute(entity.attributes[attribute].type,
                                                                                                   column: column, json: json)
            } catch {
                throw MappingError(.store, "row \(id) of \(quote(table.name)): \(error.message); the store was changed outside libmapping",
                                   attribute: "\(entity.name).\(entity.attributes[attribute].name)")
            }
        }
        return found
    }

    /// `keys` as `_id`s grouped by table (root entity), tables in order, in batches of at most
    /// `maxBatch` ids: how `rows(root:ids:)` and `column` are asked for many keys. With
    /// `wholeWhenDense`, a table's ids that are dense (`denseRange`) are one batch, which `column`
    /// reads as one range.
    package static func batches(_ keys: [Int64], wholeWhenDense: Bool = false) -> [(root: Int, ids: [Int64])] {
        var byRoot: [Int: [Int64]] = [:]
        for key in keys { byRoot[root(of: key), default: []].append(rowID(of: key)) }
        var batches: [(root: Int, ids: [Int64])] = []
        for (root, ids) in byRoot.sorted(by: { $0.key < $1.key }) {
            if wholeWhenDense, denseRange(ids) != nil {
                batches.append((root, ids))
                continue
            }
            var start = 0
            while start < ids.count {
                let end = min(start + maxBatch, ids.count)
                batches.append((root, Array(ids[start..<end])))
                start = end
            }
        }
        return batches
    }

    /// The least and greatest of `ids` when they are more than a few and span less than twice
    /// their number: reading the whole range then costs less than IN lists. In any order.
    static func denseRange(_ ids: [Int64]) -> (low: Int64, high: Int64)? {
        guard ids.count > 64, let low = ids.min(), let high = ids.max() else { return nil }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        return !overflow && span < 2 * Int64(ids.count) ? (low, high) : nil
    }

    /// The most ids `rows(root:ids:)` (or values in one IN list) reads at once, and the lengths
    /// such lists are padded to (their last value repeated), so that a database prepares few
    /// statements.
    package static let maxBatch = 500
    private static let batchLengths = [1, 4, 16, 64, 250, 500]

    package static func paddedLength(_ count: Int) -> Int { batchLengths.first { $0 >= count } ?? maxBatch }

    /// `ids` (at least one, at most `maxBatch`) as an IN list's marks and values, padded to one of
    /// the few lengths by repeating the last id.
    package static func padded(_ ids: [Int64]) -> (marks: String, bound: [StoredValue]) {
        let length = paddedLength(ids.count)
        let last = ids.last ?? 0
        return (marks(length), (ids + Array(repeating: last, count: max(0, length - ids.count))).map(StoredValue.integer))
    }

    /// `count` parameters, for an IN list.
    package static func marks(_ count: Int) -> String {
        markLists[count] ?? Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// The IN lists of the padded lengths, written once.
    private static let markLists: [Int: String] = Dictionary(uniqueKeysWithValues: batchLengths.map {
        ($0, Array(repeating: "?", count: $0).joined(separator: ", "))
    })

    /// The targets of a to-many kept on its targets' to-one column (its inverse, in the
    /// destination), for the owners (rows of table `ownerRoot`) whose ids fill `marks`: handed to
    /// `each` owner by owner (its key, its targets with their places). The rows come in the order of
    /// the (to-one, position) index, so each owner's targets arrive together and in order
    /// (`inOrder`), unless one of them has no place (the database puts nulls elsewhere).
    private func inverseTargets<Rows: StoredRows>(of relationship: Relationship, ownerRoot: Int, marks: String,
                                                  _ run: (String) throws(MappingError) -> Rows,
                                                  each: (_ owner: Int64, _ held: [(position: Int64, target: Int64)], _ inOrder: Bool) -> Void)
                                                  throws(MappingError) {
        let destination = relationship.destination
        guard let inverse = relationship.inverse, linkColumns.indices.contains(destination), linkColumns[destination].indices.contains(inverse),
              let column = linkColumns[destination][inverse], let table = tables[root[destination]] else { return }
        let position = positionColumns[destination][inverse].map(quote)
        let order = [quote(column), position, "\"_id\""].compactMap { $0 }.joined(separator: ", ")
        let cursor = try run("SELECT \"_id\", \(quote(column)), \(position ?? "NULL") FROM \(quote(table.name)) "
                             + "WHERE \(quote(column)) IN (\(marks)) ORDER BY \(order)")
        defer { cursor.finish() }
        let targetRoot = root[destination]
        var owner: Int64 = 0
        var held: [(position: Int64, target: Int64)] = []
        var inOrder = true
        while try cursor.step() {
            guard case .integer(let id) = cursor.column(0), case .integer(let next) = cursor.column(1),
                  id > 0, id < 1 << 48, next > 0, next < 1 << 48 else {
                throw MappingError(.store, "\(quote(table.name)) holds an _id no row can have in \(quote(column))")
            }
            if next != owner {
                if owner != 0 { each(Self.globalKey(root: ownerRoot, id: owner), held, inOrder) }
                owner = next
                held.removeAll(keepingCapacity: true)
                inOrder = true
            }
            var place = id
            if case .integer(let stored) = cursor.column(2) { place = stored } else if position != nil { inOrder = false }
            held.append((place, Self.globalKey(root: targetRoot, id: id)))
        }
        if owner != 0 { each(Self.globalKey(root: ownerRoot, id: owner), held, inOrder) }
    }

    /// The rows of one table that `filter` (an SQL `WHERE …`, or empty) picks, in `_id` order
    /// unless `inKeyOrder` is false (a caller sorting them itself spares the database a sort),
    /// their to-manys empty (`withToManys` fills them). Unless `reverse` is nil (a caller that
    /// reads the lists by their owners' keys), each to-one whose inverse is a to-many is also noted
    /// there, under its owner, with its position.
    package func rows<Rows: StoredRows>(of rootIndex: Int, filter: String, inKeyOrder: Bool = true,
                                        reverse: inout [OwnerLink: [(position: Int64, target: Int64)]]?,
                                        _ query: (String) throws(MappingError) -> Rows) throws(MappingError) -> [StoredObject] {
        var rows: [StoredObject] = []
        try self.rows(of: rootIndex, filter: filter, inKeyOrder: inKeyOrder, reverse: &reverse, into: &rows, query)
        return rows
    }

    /// `rows(of:filter:)`, appended to `rows`: a caller gathering several queries' rows moves none
    /// of them from one array to another (a copy of a row retains each of its arrays).
    package func rows<Rows: StoredRows>(of rootIndex: Int, filter: String, inKeyOrder: Bool = true,
                                        reverse: inout [OwnerLink: [(position: Int64, target: Int64)]]?,
                                        into rows: inout [StoredObject],
                                        _ query: (String) throws(MappingError) -> Rows) throws(MappingError) {
        guard let table = tables[rootIndex], let read = tableReads[rootIndex] else { return }
        let versioned = dialect == .postgres
        let cursor = try query("\(read.select) \(filter)" + (inKeyOrder ? " ORDER BY \"_id\"" : ""))
        defer { cursor.finish() }
        // Rows of one table mostly name the same entity: the last name read is compared as bytes
        // before a new String is made and looked up.
        var last: (name: [UInt8], entity: Int)?
        // Named in an error only, and captured from a local: a closure naming `attributeColumns`
        // captures a copy of the layout (every array of it retained and released) per value read.
        let columnNames = attributeColumns
        let json = json
        while try cursor.step() {
            let entityIndex: Int
            if let last, cursor.column(1, is: last.name) {
                entityIndex = last.entity
            } else {
                guard case .text(let name) = cursor.column(1), let found = entityByName[name], root[found] == rootIndex else {
                    throw MappingError(.store, "a row of \(quote(table.name)) names no entity of the spec")
                }
                entityIndex = found
                last = (Array(name.utf8), found)
            }
            guard case .integer(let id) = cursor.column(0), id > 0, id < 1 << 48 else {
                throw MappingError(.store, "a row of \(quote(table.name)) has an _id out of range")
            }
            var version: Int64 = 1
            if versioned, case .integer(let stored) = cursor.column(2) { version = stored }
            let key = Self.globalKey(root: rootIndex, id: id)
            guard read.entities.indices.contains(entityIndex) else { throw MappingError(.failed, "no read plan for an entity of the model") }
            let plan = read.entities[entityIndex]
            var values: [AttributeValue?] = []
            values.reserveCapacity(plan.attributes.count)
            for (index, attribute) in plan.attributes.enumerated() {
                if let at = attribute.column {
                    do {
                        values.append(try cursor.column(at).attribute(attribute.type, column: columnNames[entityIndex][index], json: json))
                    } catch {
                        let entity = model.entities[entityIndex]
                        throw MappingError(.store, "row \(id) of \(quote(table.name)): \(error.message); the store was changed "
                                           + "outside libmapping", attribute: "\(entity.name).\(entity.attributes[index].name)")
                    }
                } else {
                    values.append(nil)
                }
            }
            var links: [[Int64]] = []
            links.reserveCapacity(plan.links.count)
            for link in plan.links {
                if let at = link.column, case .integer(let target) = cursor.column(at) {
                    guard target > 0, target < 1 << 48 else {
                        throw MappingError(.store, "row \(id) of \(quote(table.name)) links to _id \(target), which no row can have")
                    }
                    let owner = Self.globalKey(root: link.targetRoot, id: target)
                    links.append([owner])
                    if reverse != nil, let inverse = link.positionedInverse {
                        var place = id
                        if let at = link.position, case .integer(let stored) = cursor.column(at) { place = stored }
                        reverse?[OwnerLink(owner: owner, relationship: inverse), default: []].append((place, key))
                    }
                } else {
                    links.append([])
                }
            }
            rows.append(StoredObject(key: key, entity: entityIndex, values: values, links: links, version: version))
        }
    }

    /// Every link must reach a row of the relationship's destination (or a sub-entity of it): a
    /// store edited by hand could point a to-one at a sibling entity sharing the table, which would
    /// break the graph's inverses. Links to rows that are gone are dropped when attaching.
    private func checkLinks(_ rows: [StoredObject]) throws(MappingError) {
        var entityOf: [Int64: Int] = [:]
        entityOf.reserveCapacity(rows.count)
        for row in rows { entityOf[row.key] = row.entity }
        for row in rows {
            let entity = model.entities[row.entity]
            for (index, targets) in row.links.enumerated() where entity.relationships.indices.contains(index) {
                let relationship = entity.relationships[index]
                for target in targets {
                    guard let found = entityOf[target], !model.isKind(found, of: relationship.destination) else { continue }
                    throw MappingError(.store, "\(entity.name).\(relationship.name) of row \(Self.rowID(of: row.key)) links to a "
                                       + "\(model.entities[found].name), not a \(model.entities[relationship.destination].name): the store was changed by hand",
                                       attribute: "\(entity.name).\(relationship.name)")
                }
            }
        }
    }

    /// One object per identity: a store whose unique index was dropped could hold two rows with
    /// one identity, which the graph cannot (rows without a complete identity are not compared).
    private func checkIdentities(_ rows: [StoredObject]) throws(MappingError) {
        var seen: [Int: [[AttributeValue?]: Int64]] = [:]
        for row in rows {
            let entity = model.entities[row.entity]
            guard let map = entity.identityMap, !entity.identification.isEmpty else { continue }
            let identity = entity.identification.map { row.values.indices.contains($0) ? row.values[$0] : nil }
            guard !identity.contains(where: { $0 == nil }) else { continue }
            if let other = seen[map, default: [:]].updateValue(row.key, forKey: identity) {
                let table = tables[root[row.entity]]?.name ?? entity.name
                let shown = identity.map { $0?.jsonText ?? "null" }.joined(separator: ", ")
                throw MappingError(.store, "rows \(Self.rowID(of: other)) and \(Self.rowID(of: row.key)) of \(quote(table)) hold one "
                                   + "\(entity.name) identity (\(shown)): the store was changed outside libmapping (its unique "
                                   + "index dropped?); keep one of them", attribute: entity.name)
            }
        }
    }

    /// How one table's rows are read (`rows(of:filter:…)`): the SELECT of its columns, and where
    /// each entity's attribute, to-one and position columns are in it. Made once per layout: a
    /// graph reading a row at a time made them per row, a large share of a read by key.
    struct TableRead: Sendable {
        let select: String
        /// Per entity, what a row of it reads, in one place: a row read it from the model's
        /// entities and the layout's arrays (a retain and release of each), 4% of reading a row by key.
        let entities: [EntityRead]

        struct EntityRead: Sendable {
            /// Per attribute: its column in the SELECT (nil: not in this table) and type.
            let attributes: [(column: Int32?, type: AttributeType)]
            /// Per relationship: a to-one's column (nil for a to-many, or none in this table), the
            /// table its targets are in, and, for one whose inverse is a to-many kept by position,
            /// that inverse and the position's column.
            let links: [(column: Int32?, targetRoot: Int, positionedInverse: Int?, position: Int32?)]
        }

        init(_ layout: StoreLayout, table: StoreLayout.Table) {
            let leading = layout.dialect == .postgres ? ["\"_id\"", "\"_entity\"", "\"_version\""] : ["\"_id\"", "\"_entity\""]
            select = "SELECT \((leading + table.columns.map(quote)).joined(separator: ", ")) FROM \(quote(table.name))"
            var place: [String: Int32] = [:]
            for (index, column) in table.columns.enumerated() { place[column] = Int32(clamping: index + leading.count) }
            /// The layout's column `names[entity][index]`, if it names one.
            func named(_ names: [[String?]], _ entity: Int, _ index: Int) -> String? {
                names.indices.contains(entity) && names[entity].indices.contains(index) ? names[entity][index] : nil
            }
            let attributeColumns = layout.attributeColumns.map { $0.map { Optional($0) } }
            entities = layout.model.entities.map { entity in
                let e = entity.index
                let reads = entity.attributes.indices.map { index in
                    (column: named(attributeColumns, e, index).flatMap { place[$0] }, type: entity.attributes[index].type)
                }
                let follows = entity.relationships.enumerated().map { index, relationship in
                    let position = named(layout.positionColumns, e, index)
                    let targetRoot = layout.root.indices.contains(relationship.destination) ? layout.root[relationship.destination] : 0
                    return (column: relationship.toMany ? nil : named(layout.linkColumns, e, index).flatMap { place[$0] },
                            targetRoot: targetRoot, positionedInverse: position == nil ? nil : relationship.inverse,
                            position: position.flatMap { place[$0] })
                }
                return EntityRead(attributes: reads, links: follows)
            }
        }
    }

    static func tableReads(_ layout: StoreLayout) -> [Int: TableRead] {
        layout.tables.mapValues { TableRead(layout, table: $0) }
    }

    /// The targets of each join table, by owner `_id`, in position order; `filter` (an SQL
    /// `WHERE …` on `owner`, or empty) picks the owners.
    package func joinTargets<Rows: StoredRows>(_ query: (String) throws(MappingError) -> Rows, joins: Set<String>? = nil,
                                               filter: String = "") throws(MappingError) -> [String: [Int64: [Int64]]] {
        var toMany: [String: [Int64: [Int64]]] = [:]
        for join in joins ?? Set(joinTables.flatMap { $0.compactMap { $0 } }) {
            let cursor = try query("SELECT \"owner\", \"target\" FROM \(quote(join)) \(filter) ORDER BY \"owner\", \"position\", \"target\"")
            defer { cursor.finish() }
            var targets: [Int64: [Int64]] = [:]
            while try cursor.step() {
                if case .integer(let owner) = cursor.column(0), case .integer(let target) = cursor.column(1) {
                    guard owner > 0, owner < 1 << 48, target > 0, target < 1 << 48 else {
                        throw MappingError(.store, "\(quote(join)) holds an _id no row can have (\(owner) → \(target))")
                    }
                    targets[owner, default: []].append(target)
                }
            }
            toMany[join] = targets
        }
        return toMany
    }
}
