import MappingCore
import MappingSQL

extension Statement: StoredRows {
    func finish() { reset() }
}

/// The rows the graph asks for as it is touched: by key (a batch of faults, padded to a few
/// statement lengths so that few are prepared), by identity (through the identification's unique
/// index), or all of them (`StoreLayout.load` says how rows are read back).
extension SQLiteStore: RowSource {
    public func object(forKey key: Int64) -> ObjectID? { rowKeys.object(forKey: key) }

    public func key(of object: ObjectID) -> Int64? { rowKeys.key(of: object) }

    /// The file is locked for this context (`locking_mode=EXCLUSIVE`): no one else writes it.
    public var writtenOnlyHere: Bool { true }

    public func rows(keys wanted: [Int64]) throws(MappingError) -> [StoredObject] {
        var rows: [StoredObject] = []
        for (root, ids) in StoreLayout.batches(wanted) { rows += try layout.rows(root: root, ids: ids, lists: false, uneven: &uneven, bound) }
        return rows
    }

    public func lists(of entity: Entity, relationship: Int, owners: [Int64]) throws(MappingError) -> [Int64: [Int64]] {
        var lists: [Int64: [Int64]] = [:]
        lists.reserveCapacity(owners.count)
        for (_, ids) in StoreLayout.batches(owners) {
            try layout.lists(of: entity, relationship: relationship, ids: ids, into: &lists, uneven: &uneven, bound)
        }
        return lists
    }

    public func rows(of entity: Entity, identities: [AttributeValue]) throws(MappingError) -> [StoredObject] {
        try layout.rows(of: entity, identities: identities, uneven: &uneven, bound)
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
                let table = layout.tables[root]?.name ?? entity.name
                throw MappingError(.store, "a row of \(quote(table)) has an _id out of range: the store was changed outside libmapping")
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
        for (_, ids) in StoreLayout.batches(wanted, wholeWhenDense: true) {
            let batch = try layout.column(attribute, of: entity, ids: ids, bound)
            if found.isEmpty { found = batch } else { found.merge(batch) { $1 } }
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
        try layout.load(uneven: &uneven) { (sql) throws(MappingError) in try connection.statement(sql) }
    }

    /// A prepared statement with `values` bound to its parameters, in order.
    private func bound(_ sql: String, _ values: [StoredValue]) throws(MappingError) -> Statement {
        let statement = try connection.statement(sql)
        for (index, value) in values.enumerated() { try statement.bind(Int32(clamping: index + 1), value) }
        return statement
    }
}
