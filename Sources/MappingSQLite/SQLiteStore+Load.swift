import MappingCore
import MappingSQL

extension Statement: StoredRows {
    func finish() { reset() }
}

/// The rows the graph asks for as it is touched: by key (a batch of faults, padded to a few
/// statement lengths so that few are prepared), by identity (through the identification's unique
/// index), or all of them (`StoreLayout.load` says how rows are read back).
extension SQLiteStore: RowSource {
    public func object(forKey key: Int64) -> ObjectID? { objects[key] }

    public func key(of object: ObjectID) -> Int64? { keys[object] }

    public func rows(keys wanted: [Int64]) throws(MappingError) -> [StoredObject] {
        var byRoot: [Int: [Int64]] = [:]
        for key in wanted { byRoot[StoreLayout.root(of: key), default: []].append(StoreLayout.rowID(of: key)) }
        var rows: [StoredObject] = []
        for root in byRoot.keys.sorted() {
            let ids = byRoot[root] ?? []
            var start = 0
            while start < ids.count {
                let end = min(start + StoreLayout.maxBatch, ids.count)
                rows += try layout.rows(root: root, ids: Array(ids[start..<end]), bound)
                start = end
            }
        }
        return rows
    }

    public func keys(of entity: Entity, identities: [[AttributeValue]]) throws(MappingError) -> [Int64] {
        let columns = layout.identityColumns(entity)
        guard !columns.isEmpty, layout.root.indices.contains(entity.index),
              let table = layout.tables[layout.root[entity.index]] else { return [] }
        let root = layout.root[entity.index]
        let select = "SELECT \"_id\" FROM \(quote(table.name)) WHERE "
        var found: [Int64] = []
        func collect(_ query: Statement) throws(MappingError) {
            defer { query.reset() }
            while try query.step() {
                if case .integer(let id) = query.column(0) { found.append(StoreLayout.globalKey(root: root, id: id)) }
            }
        }
        let complete = identities.filter { $0.count == columns.count }
        guard columns.count == 1, let column = columns.first else {
            // A compound identification: one query per identity, through the unique index.
            let test = columns.map { quote($0) + " = ?" }.joined(separator: " AND ")
            for identity in complete { try collect(try bound(select + test, identity.map { StoredValue($0) })) }
            return found
        }
        // One column: IN lists of up to `maxBatch` values, padded to a few lengths.
        var start = 0
        while start < complete.count {
            let batch = complete[start..<min(start + StoreLayout.maxBatch, complete.count)].compactMap(\.first)
            start += StoreLayout.maxBatch
            guard let last = batch.last else { continue }
            let length = StoreLayout.paddedLength(batch.count)
            let values = (batch + Array(repeating: last, count: length - batch.count)).map { StoredValue($0) }
            try collect(try bound(select + quote(column) + " IN (" + StoreLayout.marks(length) + ")", values))
        }
        return found
    }

    public func keys(of entity: Entity, kinds: [Entity], where filter: RowFilter?, order: [RowOrder], offset: Int,
                     limit: Int?) throws(MappingError) -> [Int64] {
        guard let (sql, parameters) = layout.rowQuery(entity, kinds: kinds, filter: filter, order: order, offset: offset, limit: limit),
              layout.root.indices.contains(entity.index) else { return [] }
        let root = layout.root[entity.index]
        // Not kept: predicates vary without end, and a statement cache must not grow with them.
        let query = try connection.transientStatement(sql)
        for (index, value) in parameters.enumerated() { try query.bind(Int32(clamping: index + 1), value) }
        var found: [Int64] = []
        while try query.step() {
            guard case .integer(let id) = query.column(0), id > 0, id < 1 << 48 else {
                throw MappingError(.store, "a row of the store has an _id out of range: the store was changed outside libmapping")
            }
            found.append(StoreLayout.globalKey(root: root, id: id))
        }
        return found
    }

    public func count(of entity: Entity, kinds: [Entity], where filter: RowFilter?) throws(MappingError) -> Int {
        guard let (sql, parameters) = layout.rowQuery(entity, kinds: kinds, filter: filter, count: true) else { return 0 }
        let query = try connection.transientStatement(sql)
        for (index, value) in parameters.enumerated() { try query.bind(Int32(clamping: index + 1), value) }
        guard try query.step(), case .integer(let count) = query.column(0) else { return 0 }
        return Int(clamping: count)
    }

    public func column(_ attribute: Int, of entity: Entity, keys wanted: [Int64]) throws(MappingError) -> [Int64: AttributeValue?] {
        var found: [Int64: AttributeValue?] = [:]
        var start = 0
        while start < wanted.count {
            let batch = Array(wanted[start..<min(start + StoreLayout.maxBatch, wanted.count)])
            start += StoreLayout.maxBatch
            for (key, value) in try layout.column(attribute, of: entity, ids: batch.map(StoreLayout.rowID), bound) {
                found[key] = value
            }
        }
        return found
    }

    public func holdsRows() throws(MappingError) -> Bool {
        for table in layout.tables.values {
            let query = try connection.statement("SELECT 1 FROM \(quote(table.name)) LIMIT 1")
            defer { query.reset() }
            if try query.step() { return true }
        }
        return false
    }

    public func allRows() throws(MappingError) -> [StoredObject] {
        try layout.load { (sql) throws(MappingError) in try connection.statement(sql) }
    }

    /// A prepared statement with `values` bound to its parameters, in order.
    private func bound(_ sql: String, _ values: [StoredValue]) throws(MappingError) -> Statement {
        let statement = try connection.statement(sql)
        for (index, value) in values.enumerated() { try statement.bind(Int32(clamping: index + 1), value) }
        return statement
    }
}
