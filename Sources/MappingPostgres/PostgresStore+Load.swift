import MappingCore
import MappingSQL

/// The rows the graph asks for as it is touched (as from an SQLite store: `SQLiteStore+Load`): by
/// key, by identity through the identification's unique index, by a filter run in the database,
/// or all of them. Each request reads in one snapshot, so the rows of one batch agree with each
/// other (rows read by later requests may be newer: other processes' commits are announced, and
/// applied to the rows this graph holds before its next call).
extension PostgresStore: RowSource {
    public func object(forKey key: Int64) -> ObjectID? { objects[key] }

    public func key(of object: ObjectID) -> Int64? { rows[object]?.key }

    public func rows(keys wanted: [Int64]) throws(MappingError) -> [StoredObject] {
        try reading { () throws(MappingError) in try snapshot { () throws(MappingError) in try read(keys: wanted, lists: false) } }
    }

    /// The rows of `wanted`, table by table, in batches, inside the caller's snapshot; with
    /// `lists`, their one-to-manys too (a refresh of rows whose lists the graph holds).
    func read(keys wanted: [Int64], lists: Bool) throws(MappingError) -> [StoredObject] {
        var found: [StoredObject] = []
        for (root, ids) in StoreLayout.batches(wanted) { found += try layout.rows(root: root, ids: ids, lists: lists, uneven: &uneven, marked) }
        return found
    }

    public func lists(of entity: Entity, relationship: Int, owners: [Int64]) throws(MappingError) -> [Int64: [Int64]] {
        try reading { () throws(MappingError) in
            try snapshot { () throws(MappingError) -> [Int64: [Int64]] in
                var lists: [Int64: [Int64]] = [:]
                lists.reserveCapacity(owners.count)
                for (_, ids) in StoreLayout.batches(owners) {
                    try layout.lists(of: entity, relationship: relationship, ids: ids, into: &lists, uneven: &uneven, marked)
                }
                return lists
            }
        }
    }

    /// Their keys in one query (`identityQuery`), then their rows by key, in one snapshot.
    public func rows(of entity: Entity, identities: [AttributeValue]) throws(MappingError) -> [StoredObject] {
        guard layout.root.indices.contains(entity.index), let (sql, values) = identityQuery(entity, identities) else { return [] }
        let root = layout.root[entity.index]
        return try reading { () throws(MappingError) in
            try snapshot { () throws(MappingError) in
                let keys = try ids(try marked(sql, values)).map { StoreLayout.globalKey(root: root, id: $0) }
                return try read(keys: Array(Set(keys)).sorted(), lists: false)
            }
        }
    }

    /// One query for all of `identities`: each identification column's values as one array
    /// parameter, through the identification's unique index. Queries of 500 parameters each (as
    /// SQLite takes them) cost the server more to parse and plan than to run: 15,000 phone numbers
    /// took 100 ms of server time in 30 of them.
    private func identityQuery(_ entity: Entity, _ identities: [AttributeValue]) -> (sql: String, values: [StoredValue])? {
        let columns = layout.identityColumns(entity)
        guard !columns.isEmpty, columns.count == entity.identification.count, identities.count % columns.count == 0,
              let table = layout.tables[layout.root[entity.index]],
              entity.identification.allSatisfy(entity.attributes.indices.contains) else { return nil }
        var arrays = Array(repeating: ArrayText(), count: columns.count)
        for (index, value) in identities.enumerated() { arrays[index % columns.count].append(StoredValue(value)) }
        guard arrays[0].count > 0 else { return nil }
        let casts = entity.identification.map { "?::" + layout.sqlType(entity.attributes[$0].type) + "[]" }
        let test = columns.count == 1 ? "\(quote(columns[0])) = ANY(\(casts[0]))"
            : "(\(columns.map(quote).joined(separator: ", "))) IN (SELECT * FROM unnest(\(casts.joined(separator: ", "))))"
        return ("SELECT \"_id\" FROM \(quote(table.name)) WHERE " + test, arrays.map { .text($0.literal) })
    }

    public func keys(of entity: Entity, kinds: [Entity], where filter: RowFilter?, order: [RowOrder], offset: Int,
                     limit: Int?) throws(MappingError) -> [Int64] {
        guard let (sql, values) = layout.rowQuery(entity, kinds: kinds, filter: filter, order: order, offset: offset, limit: limit),
              layout.root.indices.contains(entity.index) else { return [] }
        let root = layout.root[entity.index]
        return try reading { () throws(MappingError) in try ids(try marked(sql, values)).map { StoreLayout.globalKey(root: root, id: $0) } }
    }

    public func count(of entity: Entity, kinds: [Entity], where filter: RowFilter?) throws(MappingError) -> Int {
        guard let (sql, values) = layout.rowQuery(entity, kinds: kinds, filter: filter, count: true) else { return 0 }
        let result = try reading { () throws(MappingError) in try marked(sql, values) }
        guard case .integer(let count) = result.value(row: 0, column: 0) else { return 0 }
        return Int(clamping: count)
    }

    public func column(_ attribute: Int, of entity: Entity, keys wanted: [Int64]) throws(MappingError) -> [Int64: AttributeValue?] {
        try reading { () throws(MappingError) in
            var found: [Int64: AttributeValue?] = [:]
            for (_, ids) in StoreLayout.batches(wanted, wholeWhenDense: true) {
                let batch = try layout.column(attribute, of: entity, ids: ids, marked)
            if found.isEmpty { found = batch } else { found.merge(batch) { $1 } }
            }
            return found
        }
    }

    /// Always: other processes may add rows at any time, so even a graph on an empty schema holds
    /// only what it has read or written (and reads identities through the database).
    public func holdsRows() throws(MappingError) -> Bool { true }

    public func allRows() throws(MappingError) -> [StoredObject] {
        let all = try reading { () throws(MappingError) in
            try snapshot { () throws(MappingError) in try layout.load(uneven: &uneven) { (sql) throws(MappingError) in try connection.query(sql) } }
        }
        // From now on the graph is whole, and follows every row others write.
        holdsEverything = true
        return all
    }

    public func rowsReleased() {}

    public func faultsMet() -> [ObjectID] {
        defer { unreadRowsMet = [] }
        return unreadRowsMet
    }

    /// The graph holds these rows no more: they are faults again (version 0: nothing is written
    /// over them until read), and announcements about them are dropped, not read.
    public func evicted(_ evicted: [ObjectID]) {
        holdsEverything = false
        for object in evicted {
            if let row = rows[object] { rows[object] = (row.key, 0) }
        }
    }

    /// Records the object each key became and, for rows read, the version read (a fault's is 0
    /// until its row is read: nothing is written over a row on the strength of it).
    public func attached(_ read: [StoredObject], as found: [(key: Int64, object: ObjectID)]) {
        rows.reserveCapacity(rows.count + found.count)
        objects.reserveCapacity(objects.count + found.count)
        for (key, object) in found where rows[object] == nil {
            rows[object] = (key, 0)
            objects[key] = object
        }
        for row in read {
            guard let object = objects[row.key] else { continue }
            rows[object] = (row.key, row.version)
        }
    }

    /// Runs a statement written with `?`s (as `StoreLayout` writes them).
    private func marked(_ sql: String, _ values: [StoredValue]) throws(MappingError) -> PostgresResult {
        try connection.query(marked: sql, values)
    }

    /// `body`'s reads in one snapshot of the database.
    func snapshot<T>(_ body: () throws(MappingError) -> T) throws(MappingError) -> T {
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do throws(MappingError) {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The `_id`s in the first column of `result`, checked.
    private func ids(_ result: PostgresResult) throws(MappingError) -> [Int64] {
        var found: [Int64] = []
        found.reserveCapacity(Int(result.count))
        for row in 0..<result.count {
            guard case .integer(let id) = result.value(row: row, column: 0), id > 0, id < 1 << 48 else {
                throw MappingError(.store, "a row of the store \(quote(schema)) has an _id out of range: it was changed outside libmapping")
            }
            found.append(id)
        }
        return found
    }
}
