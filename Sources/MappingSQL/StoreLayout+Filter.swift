import MappingCore

/// Row filters (`RowFilter`, what the core can hand a database of a predicate) as SQL, on the table
/// of the filtered entity, with `?` for each parameter (PostgreSQL's connection numbers them).
/// Every comparison is two-valued, as the in-memory evaluator's are: a null attribute compares
/// false (`col IS NOT NULL AND col = ?`, which an index still serves) except under `!=`, so NOT
/// means what it means in memory. Both databases order as memory does: strings by their bytes
/// (PostgreSQL's text is compared in the "C" collation), nulls first ascending.
extension StoreLayout {
    /// The query for the keys of the rows of `kinds` (entities of one table) that `filter` keeps,
    /// sorted by `order` then `_id`, from `offset`, at most `limit` (`count`: their number
    /// instead), with its parameters; nil when `entity` has no table.
    package func rowQuery(_ entity: Entity, kinds: [Entity], filter: RowFilter?, order: [RowOrder] = [], offset: Int = 0,
                          limit: Int? = nil, count: Bool = false) -> (sql: String, parameters: [StoredValue])? {
        guard root.indices.contains(entity.index), let table = tables[root[entity.index]] else { return nil }
        var parameters: [StoredValue] = kinds.map { .text($0.name) }
        var tests = ["\"_entity\" IN (\(Self.marks(kinds.count)))"]
        if let filter { tests.append(sql(filter, entity, &parameters)) }
        let what = count ? "count(*)" : "\"_id\""
        var sql = "SELECT \(what) FROM \(quote(table.name)) WHERE \(tests.joined(separator: " AND "))"
        if !count {
            let keys = order.compactMap { key -> String? in
                guard let column = sortExpression(key, entity, table: table.name) else { return nil }
                // SQLite puts nulls first ascending and last descending, as memory does; PostgreSQL
                // the other way round unless told.
                let nulls = dialect == .postgres ? (key.descending ? " NULLS LAST" : " NULLS FIRST") : ""
                return column + (key.descending ? " DESC" : "") + nulls
            }
            sql += " ORDER BY " + (keys + ["\"_id\""]).joined(separator: ", ")
            if limit != nil || offset > 0 {
                // No limit: -1 for SQLite, NULL for PostgreSQL (which refuses a negative one).
                let unlimited: StoredValue = dialect == .postgres ? .null : .integer(-1)
                sql += " LIMIT ? OFFSET ?"
                parameters += [limit.map { .integer(Int64(clamping: max($0, 0))) } ?? unlimited, .integer(Int64(clamping: max(offset, 0)))]
            }
        }
        return (sql, parameters)
    }

    /// What a sort key orders by: the entity's column, or for a key through to-ones, the column of
    /// the row the links lead to, read by nested subqueries (null when a link leads nowhere, as
    /// memory reads such a path). `table` is the outer query's.
    private func sortExpression(_ key: RowOrder, _ entity: Entity, table: String) -> String? {
        var current = entity
        var hops: [(table: String, link: String)] = []
        for hop in key.hops {
            guard linkColumns.indices.contains(current.index), linkColumns[current.index].indices.contains(hop),
                  let link = linkColumns[current.index][hop], current.relationships.indices.contains(hop),
                  model.entities.indices.contains(current.relationships[hop].destination) else { return nil }
            current = model.entities[current.relationships[hop].destination]
            guard root.indices.contains(current.index), let target = tables[root[current.index]] else { return nil }
            hops.append((target.name, link))
        }
        guard attributeColumns.indices.contains(current.index), attributeColumns[current.index].indices.contains(key.attribute),
              current.attributes.indices.contains(key.attribute) else { return nil }
        let column = attributeColumns[current.index][key.attribute]
        guard !hops.isEmpty else { return ordered(column, current.attributes[key.attribute].type) }
        // Innermost first: hop k reads its row by the link of the row before it (the outer
        // query's for the first), each under an alias of its own.
        func alias(_ level: Int) -> String { quote("mapping_sort\(level)") }
        var expression = "\(alias(hops.count)).\(quote(column))"
        for level in stride(from: hops.count, to: 0, by: -1) {
            let previous = level == 1 ? quote(table) : alias(level - 1)
            expression = "(SELECT \(expression) FROM \(quote(hops[level - 1].table)) AS \(alias(level)) WHERE \(alias(level)).\"_id\" = "
                + "\(previous).\(quote(hops[level - 1].link)))"
        }
        return dialect == .postgres && current.attributes[key.attribute].type == .string ? expression + " COLLATE \"C\"" : expression
    }

    private func sql(_ filter: RowFilter, _ entity: Entity, _ parameters: inout [StoredValue]) -> String {
        switch filter {
        case .constant(let value):
            return value ? "(1 = 1)" : "(1 = 0)"
        case .and(let parts):
            return "(" + parts.map { sql($0, entity, &parameters) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            return "(" + parts.map { sql($0, entity, &parameters) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT " + sql(inner, entity, &parameters) + ")"
        case .through(let relationship, let inner, let whenNone):
            guard linkColumns.indices.contains(entity.index), linkColumns[entity.index].indices.contains(relationship),
                  let link = linkColumns[entity.index][relationship], entity.relationships.indices.contains(relationship),
                  model.entities.indices.contains(entity.relationships[relationship].destination), root.indices.contains(entity.index),
                  let owner = tables[root[entity.index]] else { return "(1 = 0)" }
            let destination = model.entities[entity.relationships[relationship].destination]
            guard root.indices.contains(destination.index), let target = tables[root[destination.index]] else { return "(1 = 0)" }
            // Unqualified names in the subquery are its own table's, even when it is the outer one.
            let leads = "(\(quote(link)) IS NOT NULL AND \(quote(link)) IN (SELECT \"_id\" FROM \(quote(target.name)) WHERE "
                + sql(inner, destination, &parameters) + "))"
            guard whenNone else { return leads }
            // Nowhere: no link, or one to a row that is gone (a `noAction` delete leaves such links).
            let alias = quote("\(target.name)_target")
            return "(\(leads) OR \(quote(link)) IS NULL OR NOT EXISTS (SELECT 1 FROM \(quote(target.name)) AS \(alias) WHERE "
                + "\(alias).\"_id\" = \(quote(owner.name)).\(quote(link))))"
        case .prefix(let attribute, let affix):
            guard let name = column(attribute, entity) else { return "(1 = 0)" }
            guard let last = affix.unicodeScalars.last, last.value < 0x80 else { return "\(name) IS NOT NULL" }
            // A range on the bytes, which an index serves: from the prefix to the prefix with its
            // last byte one higher (past 0x7F: U+0080, whose first byte is above every ASCII one).
            let upper = String(affix.unicodeScalars.dropLast()) + String(Unicode.Scalar(last.value + 1).map(Character.init) ?? "\u{80}")
            parameters += [.text(affix), .text(upper)]
            let ordered = self.ordered(attributeColumns[entity.index][attribute], .string)
            return "(\(name) IS NOT NULL AND \(ordered) >= ? AND \(ordered) < ?)"
        case .suffix(let attribute, let affix):
            guard let name = column(attribute, entity) else { return "(1 = 0)" }
            guard !affix.isEmpty else { return "\(name) IS NOT NULL" }
            // The last bytes, as many as the (ASCII) suffix has. SQLite counts a text's characters
            // only up to a NUL byte, a blob's bytes all the way; PostgreSQL's text holds no NUL.
            parameters.append(.text(affix))
            let count = affix.utf8.count
            return dialect == .postgres ? "(\(name) IS NOT NULL AND right(\(name), \(count)) = ?)"
                : "(\(name) IS NOT NULL AND substr(CAST(\(name) AS BLOB), -\(count)) = CAST(? AS BLOB))"
        case .containing(let attribute, let needle):
            guard let name = column(attribute, entity) else { return "(1 = 0)" }
            parameters.append(.text(needle))
            return "(\(name) IS NOT NULL AND \(dialect == .postgres ? "strpos" : "instr")(\(name), ?) > 0)"
        case .count(let relationship, let op, let values):
            guard let counted = count(relationship, of: entity) else { return "(1 = 0)" }
            parameters += values.map { StoredValue($0) }
            let marks = Self.marks(values.count)
            switch op {
            case .equal: return "(\(counted) = \(marks))"
            case .notEqual: return "(\(counted) <> \(marks))"
            case .less: return "(\(counted) < \(marks))"
            case .lessOrEqual: return "(\(counted) <= \(marks))"
            case .greater: return "(\(counted) > \(marks))"
            case .greaterOrEqual: return "(\(counted) >= \(marks))"
            case .in: return "(\(counted) IN (\(marks)))"
            case .between: return "(\(counted) BETWEEN ? AND ?)"
            }
        case .any(let relationship, let inner):
            // Uncorrelated: the owners of the targets the inner filter keeps. Unqualified names in
            // each subquery are its own table's.
            guard let (target, destination, members) = members(relationship, of: entity) else { return "(1 = 0)" }
            let kept = "SELECT \"_id\" FROM \(quote(target)) WHERE " + sql(inner, destination, &parameters)
            switch members {
            case .join(let join):
                return "(\"_id\" IN (SELECT \"owner\" FROM \(quote(join)) WHERE \"target\" IN (\(kept))))"
            case .link(let link):
                return "(\"_id\" IN (SELECT \(quote(link)) FROM \(quote(target)) WHERE \(quote(link)) IS NOT NULL AND \"_id\" IN (\(kept))))"
            }
        case .rowIn(let keys):
            guard root.indices.contains(entity.index) else { return "(1 = 0)" }
            let table = root[entity.index]
            let ids = keys.filter { Self.root(of: $0) == table }.map(Self.rowID)
            guard !ids.isEmpty else { return "(1 = 0)" }
            // One parameter however many keys (an IN list of markers has a limit).
            if dialect == .postgres {
                parameters.append(.text(Self.integerArray(ids)))
                return "(\"_id\" = ANY(?::BIGINT[]))"
            }
            parameters.append(.text("[" + ids.map(String.init).joined(separator: ",") + "]"))
            return "(\"_id\" IN (SELECT \"value\" FROM json_each(?)))"
        case .compare(let attribute, let op, let values):
            guard attributeColumns.indices.contains(entity.index), attributeColumns[entity.index].indices.contains(attribute) else {
                return "(1 = 0)"
            }
            let name = quote(attributeColumns[entity.index][attribute])
            // Equality needs no collation (PostgreSQL's are deterministic: equal means same bytes);
            // order does.
            let column = op == .equal || op == .notEqual || op == .in ? name
                : ordered(attributeColumns[entity.index][attribute], entity.attributes.indices.contains(attribute) ? entity.attributes[attribute].type : .integer)
            parameters += values.map { StoredValue($0) }
            let marks = Self.marks(values.count)
            switch (op, values.count) {
            case (.equal, 0): return "\(name) IS NULL"
            case (.notEqual, 0): return "\(name) IS NOT NULL"
            case (.notEqual, _): return "(\(name) IS NULL OR \(column) <> \(marks))"
            case (.equal, _): return "(\(name) IS NOT NULL AND \(column) = \(marks))"
            case (.less, _): return "(\(name) IS NOT NULL AND \(column) < \(marks))"
            case (.lessOrEqual, _): return "(\(name) IS NOT NULL AND \(column) <= \(marks))"
            case (.greater, _): return "(\(name) IS NOT NULL AND \(column) > \(marks))"
            case (.greaterOrEqual, _): return "(\(name) IS NOT NULL AND \(column) >= \(marks))"
            case (.in, _): return "(\(name) IS NOT NULL AND \(column) IN (\(marks)))"
            case (.between, _): return "(\(name) IS NOT NULL AND \(column) BETWEEN ? AND ?)"
            }
        }
    }

    /// Where a to-many's members are kept: in its join table, or on its targets' rows (a
    /// one-to-many: the inverse's column).
    private enum Members {
        case join(String)
        case link(String)
    }

    /// The target table, destination entity and members of `entity`'s to-many `relationship`.
    private func members(_ relationship: Int, of entity: Entity) -> (String, Entity, Members)? {
        guard entity.relationships.indices.contains(relationship) else { return nil }
        let declared = entity.relationships[relationship]
        guard model.entities.indices.contains(declared.destination), root.indices.contains(declared.destination),
              let target = tables[root[declared.destination]] else { return nil }
        let destination = model.entities[declared.destination]
        if joinTables.indices.contains(entity.index), joinTables[entity.index].indices.contains(relationship),
           let join = joinTables[entity.index][relationship] {
            return (target.name, destination, .join(join))
        }
        guard let inverse = model.inverse(of: declared), let index = destination.relationshipIndex(named: inverse.name),
              linkColumns.indices.contains(destination.index), linkColumns[destination.index].indices.contains(index),
              let link = linkColumns[destination.index][index] else { return nil }
        return (target.name, destination, .link(link))
    }

    /// The number of live targets of `entity`'s to-many `relationship` for the outer query's row,
    /// as a subquery: the target rows whose to-one names it (a one-to-many is kept on its targets)
    /// or the join rows it owns whose target still exists (a one-way to-many's join rows may outlive
    /// their targets, which memory skips). The inner tables are aliased, so the outer table's name
    /// names the outer row even when both are one table.
    private func count(_ relationship: Int, of entity: Entity) -> String? {
        guard root.indices.contains(entity.index), let owner = tables[root[entity.index]],
              let (target, _, members) = members(relationship, of: entity) else { return nil }
        let outer = "\(quote(owner.name)).\"_id\""
        switch members {
        case .join(let join):
            return "(SELECT count(*) FROM \(quote(join)) AS \"j\" WHERE \"j\".\"owner\" = \(outer) AND EXISTS "
                + "(SELECT 1 FROM \(quote(target)) AS \"t\" WHERE \"t\".\"_id\" = \"j\".\"target\"))"
        case .link(let link):
            return "(SELECT count(*) FROM \(quote(target)) AS \"t\" WHERE \"t\".\(quote(link)) = \(outer))"
        }
    }

    /// The quoted column of an attribute of `entity`, if it has one.
    private func column(_ attribute: Int, _ entity: Entity) -> String? {
        guard attributeColumns.indices.contains(entity.index), attributeColumns[entity.index].indices.contains(attribute) else {
            return nil
        }
        return quote(attributeColumns[entity.index][attribute])
    }

    /// A column as the database should order it: PostgreSQL's text in the "C" collation (by
    /// bytes, as memory and SQLite compare strings), anything else as it is.
    private func ordered(_ column: String, _ type: AttributeType) -> String {
        dialect == .postgres && type == .string ? quote(column) + " COLLATE \"C\"" : quote(column)
    }

    /// The `WHERE` clauses picking the rows of `entity`'s table that hold these identities, through
    /// its identification's unique index: IN lists of up to `maxBatch` values, padded to a few
    /// lengths, for one column; one clause per identity for several. `identities` are one after
    /// another, each as many values as the identification has columns. Empty without an
    /// identification or a table, or when `identities` do not divide into whole identities.
    package func identityFilters(_ entity: Entity, _ identities: [AttributeValue]) -> [(filter: String, parameters: [StoredValue])] {
        let columns = identityColumns(entity)
        guard !columns.isEmpty, identities.count % columns.count == 0, root.indices.contains(entity.index),
              tables[root[entity.index]] != nil else { return [] }
        guard columns.count == 1, let column = columns.first else {
            let test = "WHERE " + columns.map { quote($0) + " = ?" }.joined(separator: " AND ")
            return stride(from: 0, to: identities.count, by: columns.count).map { start in
                (test, identities[start..<start + columns.count].map { StoredValue($0) })
            }
        }
        var queries: [(filter: String, parameters: [StoredValue])] = []
        var start = 0
        while start < identities.count {
            let batch = identities[start..<min(start + Self.maxBatch, identities.count)]
            start += Self.maxBatch
            guard let last = batch.last else { continue }
            var values: [StoredValue] = []
            values.reserveCapacity(Self.paddedLength(batch.count))
            for value in batch { values.append(StoredValue(value)) }
            let length = Self.paddedLength(batch.count)
            values += repeatElement(StoredValue(last), count: length - batch.count)
            queries.append(("WHERE " + quote(column) + " IN (" + Self.marks(length) + ")", values))
        }
        return queries
    }
}
