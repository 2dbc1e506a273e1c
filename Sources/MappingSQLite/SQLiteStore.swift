import MappingCore
import MappingSQL
import CSQLite

/// The graph kept in an SQLite database file (`StoreLayout` says how). Opening reads no rows: the
/// graph reads them as they are touched (`RowSource`, `SQLiteStore+Load`). Each commit of the context is written in one SQLite transaction before the commit
/// is final, so a failed write fails the commit and the file and the graph stay as they were.
///
/// Durability: the database runs in WAL mode. By default (`synchronous=NORMAL`) a commit survives
/// the process being killed; a power loss may lose the last commits before a checkpoint, never
/// leave a partial one. `durable` (`synchronous=FULL`) makes each commit survive power loss too.
/// The file is locked for the context that opened it (`locking_mode=EXCLUSIVE`): a second open,
/// from this process or another, fails with MAPPING_EBUSY until the first context is freed.
public final class SQLiteStore: PersistentStore, @unchecked Sendable {
    /// The layout version this library writes; a file with a higher one is refused.
    static let format = 1

    let connection: SQLiteConnection
    let layout: StoreLayout
    /// The key (`StoreLayout.globalKey`) of each object read or written, and the object of each
    /// key: kept in step with the file by `write` and with the graph by `attached` (under the
    /// context's lock). Without run-time exclusivity checks (as `StringArena`'s fields): every
    /// row read or written looks it up, in short calls under the context's lock that never overlap.
    let rowKeys = RowKeys()
    /// Per table (root entity), the next `_id` to give out, once read.
    @exclusivity(unchecked) var nextIDs: [Int: Int64] = [:]
    /// Per table (root entity), the statements (up to their IN list) that drop links to its
    /// deleted rows (`SQLiteStore+Write`).
    var linkDrops: [Int: [String]] = [:]
    /// Per entity and batch size, its prepared INSERT once used (`SQLiteStore+Write`).
    @exclusivity(unchecked) var insertStatements: [Statement?] = []
    /// Lists read whose places have gaps, renumbered by the next commit (`StoreLayout+Lists`).
    var uneven: Set<UnevenList> = []

    let readOnly: Bool

    private init(connection: SQLiteConnection, layout: StoreLayout, readOnly: Bool) {
        self.connection = connection
        self.layout = layout
        self.readOnly = readOnly
    }

    public struct Options: Sendable {
        public var create = true
        public var readOnly = false
        public var durable = false
        /// When the spec changed beyond growth: drop the store's objects and start over.
        public var rebuild = false
        public init(create: Bool = true, readOnly: Bool = false, durable: Bool = false, rebuild: Bool = false) {
            self.create = create
            self.readOnly = readOnly
            self.durable = durable
            self.rebuild = rebuild
        }
    }

    /// Opens (or creates) the store at `path` for `spec`, reading no rows. A new store records the
    /// spec's text; an existing one is compared with it (and migrated, or rebuilt).
    public static func open(_ path: String, spec: StoreSpec, options: Options = Options()) throws(MappingError) -> OpenedStore {
        // Opened for writing even when read-only is asked (a WAL database cannot be read without the
        // right to write its index); `write` refuses every commit instead. A write-protected file
        // opens read-only and its first commit fails with MAPPING_ESTORE.
        let connection = try SQLiteConnection.open(path: path, create: options.create && !options.readOnly)
        let store = SQLiteStore(connection: connection, layout: StoreLayout(model: spec.model, json: spec.json),
                                readOnly: options.readOnly)
        try store.prepare(spec: spec, options: options)
        return OpenedStore(store: store, objects: [])
    }

    public func attached(_ rows: [StoredObject], as found: [(key: Int64, object: ObjectID)]) {
        for (key, object) in found { rowKeys.set(object, key: key) }
    }

    public func rowsReleased() {
        #if os(Linux)
        // Reading every row held their values first (tens of MB for 100k objects, freed now);
        // glibc keeps freed memory for reuse, so without a trim the process would go on holding it.
        malloc_trim(0)
        #endif
    }

    /// The spec a store was written with, as it recorded it: what a program that has only the file
    /// (the `mapping` tool's `query`) opens it with. MAPPING_ESTORE for a file that is not a store.
    public static func recordedSpec(at path: String) throws(MappingError) -> String {
        let connection = try SQLiteConnection.open(path: path, create: false)
        let query: Statement
        do throws(MappingError) {
            query = try connection.statement("SELECT \"value\" FROM \"_mapping\" WHERE \"key\" = 'spec'")
        } catch {
            throw MappingError(.store, "\"\(path)\" is not a libmapping store (\(error.message))")
        }
        guard try query.step(), case .text(let spec) = query.column(0) else {
            throw MappingError(.store, "\"\(path)\" records no spec: it is not a libmapping store")
        }
        query.reset()
        return spec
    }

    /// Locks the file, checks or creates the schema and records the spec.
    private func prepare(spec: StoreSpec, options: Options) throws(MappingError) {
        try connection.execute("PRAGMA locking_mode=EXCLUSIVE")
        try connection.execute("PRAGMA busy_timeout=0")
        // Takes the file's lock now (kept, in exclusive mode) so a second context fails at open. A
        // file that is not a database fails here, before anything is written to it.
        try connection.execute("BEGIN EXCLUSIVE; COMMIT")
        try checkOrCreate(spec: spec, options: options)
        try checkColumns()
        // Only once the file is known to be a store (or was made one) is its journal mode set.
        if !options.readOnly {
            try connection.execute("PRAGMA journal_mode=WAL")
            try connection.execute(options.durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
            try addMissingIndexes()
        }
    }

    /// Indexes this library's layout has that the file lacks (made by an older libmapping, which
    /// did not index the to-one columns that keep to-manys), made once, in one transaction. A
    /// read-only open goes without them: its reads are the same, only slower. A unique index that
    /// is missing was dropped outside libmapping: it is not put back here (rows breaking it are
    /// refused as they are read), only by a migration.
    private func addMissingIndexes() throws(MappingError) {
        let present = try connection.statement("SELECT \"name\" FROM sqlite_master WHERE \"type\" = 'index'")
        var names: Set<String> = []
        while try present.step() { if case .text(let name) = present.column(0) { names.insert(name) } }
        present.reset()
        let missing = layout.tables.keys.sorted().flatMap { layout.indexes(root: $0) }.filter { !$0.unique && !names.contains($0.name) }
        guard !missing.isEmpty else { return }
        try connection.execute("BEGIN IMMEDIATE")
        do throws(MappingError) {
            for index in missing { try connection.execute(index.sql) }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Creates the schema in a new file, or checks an existing store's layout version and spec.
    private func checkOrCreate(spec: StoreSpec, options: Options) throws(MappingError) {
        let existing = try connection.statement("SELECT count(*), count(CASE WHEN name = '_mapping' THEN 1 END) FROM sqlite_master")
        guard try existing.step() else { throw MappingError(.store, "cannot read the store \"\(connection.path)\"") }
        let (objects, marker) = (existing.column(0), existing.column(1))
        existing.reset()
        if marker == .integer(0) {
            // Only an empty database becomes a store: another program's database is left alone.
            guard objects == .integer(0), !options.readOnly else {
                throw MappingError(.store, "\"\(connection.path)\" is not a libmapping store (it has no _mapping table)")
            }
            try create(specText: spec.text)
            return
        }
        let meta = try connection.statement("SELECT key, value FROM \"_mapping\"")
        var recorded: [String: String] = [:]
        while try meta.step() {
            if case .text(let key) = meta.column(0), case .text(let value) = meta.column(1) { recorded[key] = value }
        }
        meta.reset()
        guard let format = recorded["format"].flatMap({ Int($0) }) else {
            throw MappingError(.store, "\"\(connection.path)\" has no layout version: it is not a libmapping store")
        }
        guard format >= 1 else {
            throw MappingError(.store, "\"\(connection.path)\" records layout version \(format), which no libmapping writes: the store was changed outside libmapping")
        }
        guard format <= Self.format else {
            throw MappingError(.store, "\"\(connection.path)\" was written by a newer libmapping (layout \(format); this one reads up to \(Self.format))")
        }
        guard let written = recorded["spec"], !spec.isRecorded(as: written) else { return }
        guard !options.readOnly else {
            // Said only when opening for writing would do it: a change beyond growth is named.
            _ = try migration(from: written)
            throw MappingError(.spec, "the store \"\(connection.path)\" was written with another spec; open it for writing once to bring it up to this one")
        }
        if options.rebuild {
            try rebuild(specText: spec.text)
        } else {
            try migrate(from: written, to: spec.text)
        }
    }

    /// Every table and column the layout reads must be in the file as libmapping declared it: one
    /// renamed or dropped outside libmapping is reported by name rather than read as nulls (or, by
    /// SQLite's old quoting rule, as its own name); an `_id` that is no longer the table's INTEGER
    /// PRIMARY KEY (its rows' keys would be whatever the rows hold, and rows written would have
    /// none), and a column whose declared type gives another affinity (SQLite would turn the
    /// values written to it into text or numbers), are reported too.
    func checkColumns(of checked: StoreLayout? = nil) throws(MappingError) {
        let layout = checked ?? self.layout
        // Each table, whether `_id` is its key (join tables have none), and its columns' declared types.
        var expected = layout.tables.values.map { table in
            (name: table.name, keyed: true, columns: [("_id", "INTEGER"), ("_entity", "TEXT")] + Array(zip(table.columns, table.types)))
        }
        for join in layout.joins.keys {
            expected.append((join, false, [("owner", "INTEGER"), ("target", "INTEGER"), ("position", "INTEGER")]))
        }
        let info = try connection.statement("SELECT \"name\", \"type\", \"pk\" FROM pragma_table_info(?)")
        for (table, keyed, columns) in expected.sorted(by: { $0.name < $1.name }) {
            info.reset()
            try info.bind(1, .text(table))
            var present: [String: (type: String, key: Int64)] = [:]
            while try info.step() {
                guard case .text(let name) = info.column(0) else { continue }
                var declared = ""
                if case .text(let type) = info.column(1) { declared = type }
                var key: Int64 = 0
                if case .integer(let place) = info.column(2) { key = place }
                present[name] = (declared, key)
            }
            info.reset()
            guard !present.isEmpty else {
                throw MappingError(.store, "the store \"\(connection.path)\" has no table \(quote(table)): it was dropped or renamed outside libmapping")
            }
            let keyColumns = present.filter { $0.value.key != 0 }.map(\.key)
            if keyed, let id = present["_id"], keyColumns != ["_id"] || id.type.uppercased() != "INTEGER" {
                throw MappingError(.store, "the store \"\(connection.path)\": \"_id\" is no longer the INTEGER PRIMARY KEY of "
                                   + "\(quote(table)) (its schema was changed outside libmapping): its rows' keys cannot be trusted",
                                   attribute: table + "._id")
            }
            for (column, type) in columns {
                guard let found = present[column] else {
                    throw MappingError(.store, "the store \"\(connection.path)\": table \(quote(table)) has no column \(quote(column)) "
                                       + "(renamed or dropped outside libmapping): put it back as it was",
                                       attribute: table + "." + column)
                }
                guard Self.affinity(of: found.type).keeps(Self.affinity(of: type)) else {
                    throw MappingError(.store, "the store \"\(connection.path)\": column \(quote(column)) of \(quote(table)) is declared "
                                       + "\(found.type.isEmpty ? "without a type" : found.type), not \(type.isEmpty ? "without a type" : type) "
                                       + "as libmapping made it (changed outside libmapping): SQLite would change the values written to it",
                                       attribute: table + "." + column)
                }
            }
        }
    }

    /// The affinity SQLite gives a column declared `type`, by its rules in their order.
    private enum Affinity {
        case integer, text, none, real, numeric

        /// Whether a column of this affinity keeps values as one of `expected` does: the same, or
        /// REAL where libmapping declares no type (doubles: stores made before declared REAL).
        func keeps(_ expected: Affinity) -> Bool { self == expected || (self == .real && expected == .none) }
    }

    private static func affinity(of declared: String) -> Affinity {
        let type = declared.uppercased()
        if type.contains("INT") { return .integer }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .text }
        if type.isEmpty || type.contains("BLOB") { return .none }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return .real }
        return .numeric
    }

    /// Creates the schema, after dropping `dropping` tables, in one transaction.
    func create(specText: String, dropping: [String] = []) throws(MappingError) {
        try connection.execute("BEGIN IMMEDIATE")
        do throws(MappingError) {
            for name in dropping { try connection.execute("DROP TABLE \(quote(name))") }
            try connection.execute("CREATE TABLE \"_mapping\" (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
            for statement in layout.creation { try connection.execute(statement) }
            let insert = try connection.statement("INSERT INTO \"_mapping\" (\"key\", \"value\") VALUES (?, ?)")
            try insert.run([.text("format"), .text(String(Self.format))])
            let spec = try connection.statement("INSERT INTO \"_mapping\" (\"key\", \"value\") VALUES (?, ?)")
            try spec.run([.text("spec"), .text(specText)])
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
