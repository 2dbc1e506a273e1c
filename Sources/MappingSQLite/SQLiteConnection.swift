import CSQLite
import MappingCore
import MappingSQL

/// One SQLite connection and its prepared statements. Used only under the owning context's lock
/// (opening, loading and each commit's write), never from two threads at once.
final class SQLiteConnection: @unchecked Sendable {
    private let db: OpaquePointer
    let path: String
    // Prepared statements, looked up for every row a commit writes: without run-time exclusivity
    // checks (as `StringArena`'s fields), in short calls under the context's lock that never overlap.
    @exclusivity(unchecked) private var statements: [String: Statement] = [:]
    @exclusivity(unchecked) private var keyed: [RowStatement: Statement] = [:]

    private init(db: OpaquePointer, path: String) {
        self.db = db
        self.path = path
    }

    deinit {
        statements.removeAll()  // finalized before the connection closes
        keyed.removeAll()
        sqlite3_close_v2(db)
    }

    /// The rows inserted, updated or deleted through this connection so far (what a commit wrote,
    /// counted by the tests).
    var totalChanges: Int { Int(sqlite3_total_changes(db)) }

    static func open(path: String, create: Bool) throws(MappingError) -> SQLiteConnection {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw MappingError(.store, "cannot open the store \"\(path)\": " + (whyNotOpened(path, create: create) ?? message))
        }
        sqlite3_extended_result_codes(handle, 1)
        _ = mapping_sqlite_strict_quotes(handle)
        return SQLiteConnection(db: handle, path: path)
    }

    /// What SQLite's "unable to open database file" means for `path`, and what to do about it: a
    /// folder that does not exist, a file that does not (without `create`), one this process may not
    /// read and write. Nil when none of these is the reason.
    private static func whyNotOpened(_ path: String, create: Bool) -> String? {
        let folder = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        if !folder.isEmpty, mapping_path_exists(folder) == 0 {
            return "its folder \"\(folder)\" does not exist (create the folder first)"
        }
        if mapping_path_exists(path) == 0 {
            return create ? nil : "there is no such file (to make a new store, open it with MAPPING_OPEN_CREATE; in Python, create=True)"
        }
        if mapping_path_usable(path) == 0 {
            return "this process may not read and write the file (its permissions); a store is opened for writing "
                + "even to be read (SQLite's WAL needs it)"
        }
        return nil
    }

    /// The error for a failed SQLite call, with the database's own message. A busy database is
    /// another context's (MAPPING_EBUSY); everything else about the file is MAPPING_ESTORE.
    func failure(_ status: Int32, _ doing: String) -> MappingError {
        let message = String(cString: sqlite3_errmsg(db))
        switch status & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED:
            return MappingError(.busy, "the store \"\(path)\" is open in another context (\(message))")
        case SQLITE_CONSTRAINT:
            return MappingError(.constraint, "the store \"\(path)\" refused \(doing): \(message)")
        default:
            return MappingError(.store, "the store \"\(path)\" failed \(doing): \(message)")
        }
    }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(MappingError) {
        let status = sqlite3_exec(db, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status, "to run \(sql.prefix(60))") }
    }

    /// A prepared statement, reset and kept for the next use of the same text.
    func statement(_ sql: String) throws(MappingError) -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v2(db, sql, -1, &raw, nil)
        guard status == SQLITE_OK, let raw else { throw failure(status, "to prepare \(sql.prefix(60))") }
        let prepared = Statement(raw, connection: self)
        statements[sql] = prepared
        return prepared
    }

    /// A prepared statement kept under `key`, its text written only the first time.
    func statement(_ key: RowStatement, _ sql: () throws(MappingError) -> String) throws(MappingError) -> Statement {
        if let cached = keyed[key] {
            cached.reset()
            return cached
        }
        let prepared = try transientStatement(try sql())
        keyed[key] = prepared
        return prepared
    }

    /// A prepared statement that is not kept (finalized once its last user lets it go), for text
    /// that varies without end.
    func transientStatement(_ sql: String) throws(MappingError) -> Statement {
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v2(db, sql, -1, &raw, nil)
        guard status == SQLITE_OK, let raw else { throw failure(status, "to prepare \(sql.prefix(60))") }
        return Statement(raw, connection: self)
    }

    var lastRowID: Int64 { sqlite3_last_insert_rowid(db) }

    /// The most parameters a statement may have on this SQLite (32,766 since 3.32, 999 before).
    var parameterLimit: Int { Int(sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }
}

/// A prepared statement: bind values, step through rows, read columns.
final class Statement {
    private let raw: OpaquePointer
    private unowned let connection: SQLiteConnection

    fileprivate init(_ raw: OpaquePointer, connection: SQLiteConnection) {
        self.raw = raw
        self.connection = connection
    }

    deinit { sqlite3_finalize(raw) }

    /// Ends the statement's current run (and with it its read of the database) and clears its bindings.
    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    /// Ends the statement's current run, keeping its bindings (for a caller that binds every
    /// parameter again).
    func rewind() {
        sqlite3_reset(raw)
    }

    func bind(_ index: Int32, _ value: StoredValue) throws(MappingError) {
        let status: Int32
        switch value {
        case .null, .invalidText: status = sqlite3_bind_null(raw, index)
        case .integer(let number): status = sqlite3_bind_int64(raw, index, number)
        case .real(let number): status = sqlite3_bind_double(raw, index, number)
        case .text(let text):
            var text = text
            status = text.withUTF8 { bytes in
                sqlite3_bind_text(raw, index, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                  Int32(clamping: bytes.count), mapping_sqlite_transient)
            }
        }
        guard status == SQLITE_OK else { throw connection.failure(status, "to bind a value") }
    }

    /// Binds text that stays where it is until the statement has run and its bindings are cleared
    /// (`clearBindings`): SQLite reads it in place instead of copying it.
    func bind(_ index: Int32, inPlace bytes: UnsafeRawBufferPointer) throws(MappingError) {
        guard let start = bytes.baseAddress, bytes.count <= Int(Int32.max) else {
            // Empty text has no address: bound as a value (a null pointer would bind NULL).
            return try bind(index, .text(String(decoding: bytes, as: UTF8.self)))
        }
        let status = sqlite3_bind_text(raw, index, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
        guard status == SQLITE_OK else { throw connection.failure(status, "to bind a value") }
    }

    /// Clears the statement's bindings (so none points at text that is about to move).
    func clearBindings() { sqlite3_clear_bindings(raw) }

    /// Steps once: true when a row is ready to read, false when the statement is done.
    func step() throws(MappingError) -> Bool {
        let status = sqlite3_step(raw)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.failure(status, "to run a statement")
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [StoredValue]) throws(MappingError) {
        for (index, value) in values.enumerated() { try bind(Int32(clamping: index + 1), value) }
        while try step() {}
    }

    /// Whether a column holds text of exactly these bytes (no String made to compare).
    func column(_ index: Int32, is bytes: [UInt8]) -> Bool {
        guard sqlite3_column_type(raw, index) == SQLITE_TEXT, let text = sqlite3_column_text(raw, index) else { return false }
        let count = Int(sqlite3_column_bytes(raw, index))
        guard count == bytes.count else { return false }
        return bytes.withUnsafeBufferPointer { expected in
            expected.elementsEqual(UnsafeBufferPointer(start: text, count: count))
        }
    }

    func column(_ index: Int32) -> StoredValue {
        switch sqlite3_column_type(raw, index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(raw, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(raw, index))
        default:
            guard let text = sqlite3_column_text(raw, index) else { return .null }
            let count = Int(sqlite3_column_bytes(raw, index))
            return .text(validating: UnsafeRawBufferPointer(start: text, count: max(0, count)))
        }
    }
}
