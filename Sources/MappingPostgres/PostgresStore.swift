import MappingCore
import MappingSQL

/// The graph kept in a PostgreSQL schema that many processes share (`StoreLayout` says how, as for
/// SQLite, plus a `_version` per row). Each context reads the rows it touches (`PostgresStore+Load`)
/// and keeps them in memory as a cache.
///
/// - A commit writes its changes in one PostgreSQL transaction (`PostgresStore+Write`): all of it or
///   none. Identities are UNIQUE indexes, so two processes that import the same new identity end
///   with one row: the second commit finds it and writes its values there. A row another process
///   changed since this context read it fails the commit with MAPPING_ECONFLICT.
/// - Each commit is announced with NOTIFY; every other context applies it before its next call
///   (`PostgresStore+Refresh`), which its observers see as a commit.
public final class PostgresStore: PersistentStore, @unchecked Sendable {
    /// The layout version this library writes; a schema with a higher one is refused.
    static let format = 1

    let connection: PostgresConnection
    let layout: StoreLayout
    let schema: String
    /// The channel commits are announced on, one per schema.
    let channel: String
    /// Names this store's own announcements, which it skips.
    let origin: String
    let readOnly: Bool
    /// Whether other processes' commits are applied (`Options.follow`).
    let follows: Bool

    /// Per object: its key across the store (`StoreLayout.globalKey`) and the version of its row
    /// as this context last read or wrote it. Kept in step with the database under the context's lock.
    var rows: [ObjectID: (key: Int64, version: Int64)] = [:]
    /// Each key's object.
    var objects: [Int64: ObjectID] = [:]
    /// Per entity: the attribute and relationship names whose change rewrites its row (a version
    /// check), and the to-manys kept in join tables (written without one, see `writeJoins`).
    let columnNames: [Set<String>]
    let joinNames: [Set<String>]
    /// Per table, the sequence its ids come from (`assignKeys`).
    var sequences: [Int: String] = [:]
    /// Faults (rows never read) the last failed commit met: `faultsMet`.
    var unreadRowsMet: [ObjectID] = []
    /// Lists read whose places have gaps, renumbered by the next commit (`StoreLayout+Lists`).
    var uneven: Set<UnevenList> = []
    /// Whether the graph holds every row of the schema (it read them all, for a call that needs the
    /// whole graph); until then it reads rows as they are touched (`PostgresStore+Load`).
    var holdsEverything = false
    /// The rows other processes announced they wrote or deleted, not applied yet.
    var announcedWritten: Set<Int64> = []
    var announcedInserted: Set<Int64> = []
    var announcedDeleted: Set<Int64> = []
    /// What the refresh being applied read: each row's version.
    var refreshed: [Int64: Int64] = [:]

    private init(connection: PostgresConnection, layout: StoreLayout, schema: String, readOnly: Bool, follows: Bool) {
        self.connection = connection
        self.layout = layout
        self.schema = schema
        self.readOnly = readOnly
        self.follows = follows
        channel = "mapping:" + schema
        var random = SystemRandomNumberGenerator()
        origin = String(random.next() as UInt64, radix: 36)
        columnNames = layout.model.entities.map { entity in
            Set(entity.attributes.map(\.name) + entity.relationships.filter { !$0.toMany }.map(\.name))
        }
        joinNames = layout.model.entities.map { entity in
            Set(entity.relationships.indices.filter { layout.joinTables[entity.index][$0] != nil }.map { entity.relationships[$0].name })
        }
    }

    public struct Options: Sendable {
        public var create = true
        public var readOnly = false
        /// When the spec changed: drop the store's objects and start over.
        public var rebuild = false
        /// Whether the graph follows other processes' commits (LISTEN, and a refresh before each
        /// call). An importer that never reads what others wrote saves reading all of it.
        public var follow = true
        public init(create: Bool = true, readOnly: Bool = false, rebuild: Bool = false, follow: Bool = true) {
            self.create = create
            self.readOnly = readOnly
            self.rebuild = rebuild
            self.follow = follow
        }
    }

    /// Connects, creates or checks the schema (and migrates it); reads no row. `uri` is libpq's URI,
    /// with one parameter of ours: `schema` (default `mapping`).
    public static func open(_ uri: String, spec: StoreSpec, options: Options = Options()) throws(MappingError) -> OpenedStore {
        let (connection, schema) = try connect(uri)
        let store = PostgresStore(connection: connection, layout: StoreLayout(model: spec.model, dialect: .postgres, json: spec.json),
                                  schema: schema, readOnly: options.readOnly, follows: options.follow)
        try store.prepare(spec: spec, options: options)
        // Listening before the rows are read: a commit after the read is announced, one before it is
        // in what is read (one in between is read twice, which changes nothing).
        if options.follow { try connection.setUp("LISTEN \(quote(store.channel))") }
        return OpenedStore(store: store, objects: [])
    }

    /// A connection to the database `uri` names, in its schema, with bounded waits: a call holds its
    /// context's lock while it waits on the database, never forever.
    private static func connect(_ uri: String) throws(MappingError) -> (PostgresConnection, schema: String) {
        let (conninfo, schema) = try ConnectionString.split(uri)
        let connection = try PostgresConnection.open(conninfo, name: quote(schema))
        try connection.setUp("SET lock_timeout = '60s'; SET statement_timeout = '300s'; SET search_path TO \(quote(schema))")
        return (connection, schema)
    }

    /// The spec a store was written with, as it recorded it (what a program that has only the URI
    /// opens it with). MAPPING_ESTORE for a schema that holds no store.
    public static func recordedSpec(at uri: String) throws(MappingError) -> String {
        let (connection, schema) = try connect(uri)
        let result: PostgresResult
        do throws(MappingError) {
            result = try connection.query("SELECT \"value\" FROM \(quote(schema)).\"_mapping\" WHERE \"key\" = 'spec'")
        } catch {
            throw MappingError(.store, "the schema \(quote(schema)) holds no libmapping store (\(error.message))")
        }
        guard result.count > 0, case .text(let spec) = result.value(row: 0, column: 0) else {
            throw MappingError(.store, "the schema \(quote(schema)) records no spec: it is not a libmapping store")
        }
        return spec
    }

    public func takeNotices() -> [String] { connection.takeNotices() }

    /// Under an advisory lock (processes opening one schema at once take turns): creates the
    /// schema, or checks its layout version and spec.
    private func prepare(spec: StoreSpec, options: Options) throws(MappingError) {
        try connection.execute("BEGIN")
        do throws(MappingError) {
            try connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", ["libmapping:" + schema])
            let marker = try connection.query("SELECT to_regclass($1) IS NOT NULL, "
                                              + "(SELECT count(*) FROM pg_tables WHERE schemaname = $2)",
                                              [quote(schema) + ".\"_mapping\"", schema])
            let hasMarker = marker.value(row: 0, column: 0) == .integer(1)
            if !hasMarker {
                guard marker.value(row: 0, column: 1) == .integer(0) else {
                    throw MappingError(.store, "the schema \(quote(schema)) holds tables but is not a libmapping store")
                }
                guard options.create, !options.readOnly else {
                    throw MappingError(.store, "there is no store in the schema \(quote(schema)) (MAPPING_OPEN_CREATE makes one)")
                }
                try create(specText: spec.text)
            } else {
                try check(spec: spec, options: options)
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private func check(spec: StoreSpec, options: Options) throws(MappingError) {
        let meta = try connection.query("SELECT \"key\", \"value\" FROM \"_mapping\"")
        var recorded: [String: String] = [:]
        for row in 0..<meta.count {
            if case .text(let key) = meta.value(row: row, column: 0), case .text(let value) = meta.value(row: row, column: 1) {
                recorded[key] = value
            }
        }
        guard let format = recorded["format"].flatMap({ Int($0) }) else {
            throw MappingError(.store, "the schema \(quote(schema)) has no layout version: it is not a libmapping store")
        }
        guard format <= Self.format else {
            throw MappingError(.store, "the schema \(quote(schema)) was written by a newer libmapping (layout \(format); this one reads up to \(Self.format))")
        }
        guard let written = recorded["spec"], !spec.isRecorded(as: written) else {
            try checkColumns(of: layout)
            return
        }
        guard !options.readOnly else {
            throw MappingError(.spec, "the store \(quote(schema)) was written with another spec; open it for writing once to bring it up to this one")
        }
        if options.rebuild {
            try connection.execute("DROP SCHEMA \(quote(schema)) CASCADE")
            try create(specText: spec.text)
        } else {
            try migrate(from: written, to: spec.text)
        }
    }

    /// Brings the schema up to a spec that grew since (as an SQLite store is: `StoreLayout.growth`),
    /// inside the transaction and advisory lock of `prepare`: renames first, then new tables and
    /// columns, then the spec recorded. Anything beyond growth is MAPPING_ESPEC, and nothing changes.
    private func migrate(from oldSpecText: String, to specText: String) throws(MappingError) {
        let oldModel: Model
        do {
            oldModel = try CompiledSpec.load(try layout.json(oldSpecText).value).model
        } catch {
            throw MappingError(.store, "the spec recorded in the store \(quote(schema)) no longer loads: \(error.message)")
        }
        let stored = StoreLayout(model: oldModel, dialect: .postgres, json: layout.json)
        // The schema is checked against the spec it was written with before anything changes it.
        try checkColumns(of: stored)
        let old = StoreLayout(model: oldModel, naming: Naming.renaming(oldModel, to: layout.model), dialect: .postgres, json: layout.json)
        for statement in try stored.renames(to: old) { try connection.execute(statement) }
        let grown = try layout.growth(from: old) { (table, entity) throws(MappingError) -> Int64 in
            let result = try connection.query("SELECT count(*) FROM \(quote(table))" + (entity == nil ? "" : " WHERE \"_entity\" = $1"),
                                              entity.map { [$0] } ?? [])
            guard case .integer(let count) = result.value(row: 0, column: 0) else { return 0 }
            return count
        }
        for statement in grown { try connection.execute(statement) }
        try connection.query("UPDATE \"_mapping\" SET \"value\" = $1 WHERE \"key\" = 'spec'", [specText])
    }

    /// Checks, in one query, that every table and column of `checked` is there with the type
    /// libmapping gave it: a table or column renamed, dropped or retyped outside libmapping is
    /// MAPPING_ESTORE naming it when the store opens, before a row is read or written (the server
    /// would refuse the first statement naming it, in the middle of some later call; a column
    /// retyped to one the server converts to and from, such as TEXT for a number, would go
    /// unnoticed until a value did not convert back).
    private func checkColumns(of checked: StoreLayout) throws(MappingError) {
        let result = try connection.query("SELECT \"table_name\"::text, \"column_name\"::text, \"data_type\"::text "
                                          + "FROM information_schema.columns WHERE \"table_schema\" = $1", [schema])
        var present: [String: [String: String]] = [:]
        for row in 0..<result.count {
            guard case .text(let table) = result.value(row: row, column: 0), case .text(let column) = result.value(row: row, column: 1),
                  case .text(let type) = result.value(row: row, column: 2) else { continue }
            present[table, default: [:]][column] = type
        }
        let key = checked.keyType
        var expected = checked.tables.values.map { table in
            (name: table.name, columns: [("_id", key), ("_entity", "TEXT"), ("_version", key)] + Array(zip(table.columns, table.types)))
        }
        for join in checked.joins.keys { expected.append((join, [("owner", key), ("target", key), ("position", key)])) }
        for (table, columns) in expected.sorted(by: { $0.name < $1.name }) {
            guard let found = present[table] else {
                throw MappingError(.store, "the store \(quote(schema)) has no table \(quote(table)): it was dropped or renamed outside libmapping")
            }
            for (column, type) in columns {
                guard let actual = found[column] else {
                    throw MappingError(.store, "the store \(quote(schema)): table \(quote(table)) has no column \(quote(column)) "
                                       + "(renamed or dropped outside libmapping): put it back as it was",
                                       attribute: table + "." + column)
                }
                guard actual == type.lowercased() else {
                    throw MappingError(.store, "the store \(quote(schema)): column \(quote(column)) of \(quote(table)) is of type \(actual), "
                                       + "not \(type) as libmapping made it (changed outside libmapping): put it back as it was",
                                       attribute: table + "." + column)
                }
            }
        }
    }

    private func create(specText: String) throws(MappingError) {
        try connection.execute("CREATE SCHEMA IF NOT EXISTS \(quote(schema))")
        try connection.execute("CREATE TABLE \"_mapping\" (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
        for statement in layout.creation { try connection.execute(statement) }
        try connection.query("INSERT INTO \"_mapping\" (\"key\", \"value\") VALUES ('format', $1), ('spec', $2)",
                             [String(Self.format), specText])
    }
}

/// A `postgresql://` URI as libpq takes it, and the schema our own `schema` parameter names.
enum ConnectionString {
    static func split(_ uri: String) throws(MappingError) -> (conninfo: String, schema: String) {
        guard let question = uri.firstIndex(of: "?") else { return (uri, "mapping") }
        var kept: [Substring] = []
        var schema = "mapping"
        for parameter in uri[uri.index(after: question)...].split(separator: "&") {
            if parameter.hasPrefix("schema=") {
                schema = PercentEncoding.unescape(String(parameter.dropFirst("schema=".count)))
            } else {
                kept.append(parameter)
            }
        }
        guard !schema.isEmpty, schema.utf8.count <= 48, !schema.utf8.contains(0) else {
            throw MappingError(.misuse, "the schema of a PostgreSQL store must be 1 to 48 bytes long, without NUL")
        }
        let base = String(uri[..<question])
        return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), schema)
    }
}
