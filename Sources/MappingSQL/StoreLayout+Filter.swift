import MappingCore

/// Row filters (`RowFilter`, what the core can hand a database of a predicate) as SQL, on the table
/// of the filtered entity. Every comparison is two-valued, as the in-memory evaluator's are: a null
/// attribute compares false (`col IS NOT NULL AND col = ?`, which an index still serves) except
/// under `!=`, so NOT means what it means in memory.
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
                guard attributeColumns.indices.contains(entity.index), attributeColumns[entity.index].indices.contains(key.attribute) else {
                    return nil
                }
                return quote(attributeColumns[entity.index][key.attribute]) + (key.descending ? " DESC" : "")
            }
            sql += " ORDER BY " + (keys + ["\"_id\""]).joined(separator: ", ")
            if limit != nil || offset > 0 {
                sql += " LIMIT ? OFFSET ?"
                parameters += [.integer(limit.map { Int64(clamping: max($0, 0)) } ?? -1), .integer(Int64(clamping: max(offset, 0)))]
            }
        }
        return (sql, parameters)
    }

    private func sql(_ filter: RowFilter, _ entity: Entity, _ parameters: inout [StoredValue]) -> String {
        switch filter {
        case .constant(let value):
            return value ? "1" : "0"
        case .and(let parts):
            return "(" + parts.map { sql($0, entity, &parameters) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            return "(" + parts.map { sql($0, entity, &parameters) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT " + sql(inner, entity, &parameters) + ")"
        case .compare(let attribute, let op, let values):
            guard attributeColumns.indices.contains(entity.index), attributeColumns[entity.index].indices.contains(attribute) else {
                return "0"
            }
            let column = quote(attributeColumns[entity.index][attribute])
            parameters += values.map { StoredValue($0) }
            let marks = Self.marks(values.count)
            switch (op, values.count) {
            case (.equal, 0): return "\(column) IS NULL"
            case (.notEqual, 0): return "\(column) IS NOT NULL"
            case (.notEqual, _): return "(\(column) IS NULL OR \(column) <> \(marks))"
            case (.equal, _): return "(\(column) IS NOT NULL AND \(column) = \(marks))"
            case (.less, _): return "(\(column) IS NOT NULL AND \(column) < \(marks))"
            case (.lessOrEqual, _): return "(\(column) IS NOT NULL AND \(column) <= \(marks))"
            case (.greater, _): return "(\(column) IS NOT NULL AND \(column) > \(marks))"
            case (.greaterOrEqual, _): return "(\(column) IS NOT NULL AND \(column) >= \(marks))"
            case (.in, _): return "(\(column) IS NOT NULL AND \(column) IN (\(marks)))"
            case (.between, _): return "(\(column) IS NOT NULL AND \(column) BETWEEN ? AND ?)"
            }
        }
    }
}
