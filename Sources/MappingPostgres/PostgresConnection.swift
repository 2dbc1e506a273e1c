import CPostgresLoader
import MappingCore
import MappingSQL

/// One libpq connection. Used only under the owning context's lock (opening, reading, each
/// commit's write and each refresh), never from two threads at once. A connection the server
/// dropped (a restart, a failover) is replaced by `reconnect`, set up as the first one was.
final class PostgresConnection: @unchecked Sendable {
    private var connection: OpaquePointer
    /// libpq's functions, from the plugin (`mapping_pq.h`).
    private let pq: cpq_api
    /// What error messages call the database: its schema (never the connection string, which may
    /// hold a password).
    let name: String
    /// What libpq connects with, kept for `reconnect`.
    private let conninfo: String
    /// Statements every new connection runs first (settings, LISTEN): `setUp`.
    private var setup: [String] = []
    /// The SQLSTATE of the last statement that failed ("" after one that did not): whether a
    /// failed commit may simply run again (`PostgresFailure.retryable`).
    private(set) var lastState = ""

    private init(_ connection: OpaquePointer, name: String, conninfo: String, pq: cpq_api) {
        self.connection = connection
        self.name = name
        self.conninfo = conninfo
        self.pq = pq
    }

    deinit { pq.PQfinish(connection) }

    static func open(_ conninfo: String, name: String) throws(MappingError) -> PostgresConnection {
        guard let pq = cpq_load()?.pointee else {
            let problem = cpq_load_error().map { String(cString: $0) } ?? "cannot load its plugin"
            throw MappingError(.unavailable, "the PostgreSQL store is not available: \(problem); it needs the plugin "
                               + "libmapping-postgres.so installed beside libmapping.so (or named by MAPPING_POSTGRES_PLUGIN) "
                               + "and libpq (Debian's libpq5)")
        }
        // libpq's messages about a malformed URI quote it, password and all: checked first, and
        // its message is not passed on.
        var parseError: UnsafeMutablePointer<CChar>?
        guard let options = pq.PQconninfoParse(conninfo, &parseError) else {
            pq.PQfreemem(parseError)
            throw MappingError(.misuse, "the store \(name): the connection string is not a PostgreSQL URI libpq accepts")
        }
        pq.PQconninfoFree(options)
        let connection = PostgresConnection(try connect(conninfo, name: name, pq), name: name, conninfo: conninfo, pq: pq)
        connection.keepNotices()
        return connection
    }

    /// libpq prints the server's notices and warnings on stderr unless told otherwise; a library
    /// does not write to its host's stderr. They are kept for the context's warning handler. The
    /// connection outlives its PGconn (freed in `deinit`), so libpq's pointer to it stays good.
    private func keepNotices() {
        _ = pq.PQsetNoticeProcessor(connection, { argument, message in
            guard let argument, let message else { return }
            Unmanaged<PostgresConnection>.fromOpaque(argument).takeUnretainedValue().note(String(cString: message))
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func note(_ message: String) {
        guard notices.count < Self.noticeLimit else { noticesDropped += 1; return }
        var text = message
        while text.last == "\n" || text.last == " " { text.removeLast() }
        notices.append("the store \(name): \(text)")
    }

    /// The notices kept since the last time, and how many more were dropped.
    func takeNotices() -> [String] {
        guard !notices.isEmpty else { return [] }
        var taken = notices
        if noticesDropped > 0 { taken.append("the store \(name): \(noticesDropped) more notices were dropped") }
        notices = []
        noticesDropped = 0
        return taken
    }

    private static func connect(_ conninfo: String, name: String, _ pq: cpq_api) throws(MappingError) -> OpaquePointer {
        guard let raw = pq.PQconnectdb(conninfo) else { throw MappingError(.store, "cannot connect to PostgreSQL: out of memory") }
        guard pq.PQstatus(raw) == CONNECTION_OK else {
            let message = Self.trimmed(pq.PQerrorMessage(raw))
            pq.PQfinish(raw)
            throw MappingError(.store, "cannot connect to PostgreSQL for the store \(name): \(message)")
        }
        // Silent until `keepNotices` (libpq would print them on stderr).
        _ = pq.PQsetNoticeProcessor(raw, { _, _ in }, nil)
        return raw
    }

    /// Runs `sql` now and first thing on every later connection (`reconnect`).
    func setUp(_ sql: String) throws(MappingError) {
        try execute(sql)
        setup.append(sql)
    }

    /// Whether the server dropped the connection (libpq learns it when a statement or a read fails).
    var isLost: Bool { readFailed || pq.PQstatus(connection) != CONNECTION_OK }
    /// Set when reading what the server sent failed: the connection is not trusted again.
    private var readFailed = false
    /// The server's notices and warnings not handed on yet (`takeNotices`), at most `noticeLimit`.
    private var notices: [String] = []
    private var noticesDropped = 0
    static let noticeLimit = 100

    /// A new connection in place of a lost one, set up as the first was; the old one is kept when
    /// the server cannot be reached yet (the next call tries again).
    func reconnect() throws(MappingError) {
        let fresh: OpaquePointer
        do throws(MappingError) {
            fresh = try Self.connect(conninfo, name: name, pq)
        } catch {
            throw MappingError(.store, "the store \(name) lost its connection to the server and cannot reconnect yet (\(error.message)); "
                               + "the next call tries again")
        }
        let old = connection
        connection = fresh
        keepNotices()
        readFailed = false
        do throws(MappingError) {
            for sql in setup { try execute(sql) }
        } catch {
            connection = old
            readFailed = true
            pq.PQfinish(fresh)
            throw error
        }
        pq.PQfinish(old)
    }

    private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "no message" }
        var message = String(cString: text)
        while message.last == "\n" || message.last == " " { message.removeLast() }
        return message
    }

    /// Runs statements that return no rows (several may be separated by semicolons).
    func execute(_ sql: String) throws(MappingError) {
        let result = PostgresResult(pq.PQexec(connection, sql), pq)
        try check(result, doing: sql)
    }

    /// Runs one statement with text parameters (nil for NULL) and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws(MappingError) -> PostgresResult {
        // Every parameter's bytes, NUL-terminated, in one buffer whose addresses stay put for the call.
        var bytes: [UInt8] = []
        var offsets: [Int?] = []
        for parameter in parameters {
            guard let parameter else { offsets.append(nil); continue }
            guard !parameter.utf8.contains(0) else {
                throw MappingError(.store, "PostgreSQL text cannot hold a NUL character: the store \(name) was not changed")
            }
            offsets.append(bytes.count)
            bytes += parameter.utf8
            bytes.append(0)
        }
        let raw: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in offset.flatMap { base?.advanced(by: $0) } }
            return pointers.withUnsafeBufferPointer { values in
                pq.PQexecParams(connection, sql, Int32(clamping: parameters.count), nil, values.baseAddress, nil, nil, 0)
            }
        }
        let result = PostgresResult(raw, pq)
        try check(result, doing: sql)
        return result
    }

    /// Runs one statement written with `?` for its parameters (as `StoreLayout` writes queries),
    /// numbered for PostgreSQL, with `values` bound to them in order.
    @discardableResult
    func query(marked sql: String, _ values: [StoredValue]) throws(MappingError) -> PostgresResult {
        try query(Self.numbered(sql), values.map(\.parameter))
    }

    /// `sql` with each `?` outside quoted names and string literals as `$1`, `$2`, …
    static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var quote: Character?
        var number = 0
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "\"" || character == "'" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$" + String(number)
            } else {
                result.append(character)
            }
        }
        return result
    }

    private func check(_ result: PostgresResult, doing sql: String) throws(MappingError) {
        lastState = ""
        if isLost {
            throw MappingError(.store, "the store \(name) lost its connection to the server (\(Self.trimmed(pq.PQerrorMessage(connection)))); "
                               + "the next call reconnects")
        }
        guard let raw = result.raw else {
            throw MappingError(.store, "the store \(name) failed: \(Self.trimmed(pq.PQerrorMessage(connection)))")
        }
        switch pq.PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: break
        }
        let state = pq.PQresultErrorField(raw, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let message = Self.trimmed(pq.PQresultErrorField(raw, Int32(UInt8(ascii: "M"))) ?? pq.PQerrorMessage(connection))
        lastState = state
        throw PostgresFailure.error(state: state, message: message, store: name, sql: sql)
    }

    // MARK: Notifications

    /// Waits a moment (without a connection to wait on).
    static func pause(milliseconds: Int32) { _ = poll(nil, 0, milliseconds) }

    /// Whether the server has sent something not yet read (a notification), without waiting.
    var hasInput: Bool {
        var entry = pollfd(fd: pq.PQsocket(connection), events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents != 0
    }

    /// The payloads of the notifications received on `channel` so far: those libpq has queued
    /// (it reads them along with any statement's results), and with `reading`, what the server has
    /// sent since.
    func notifications(on channel: String, reading: Bool) throws(MappingError) -> [String] {
        guard !reading || pq.PQconsumeInput(connection) == 1 else {
            readFailed = true
            throw MappingError(.store, "the store \(name) lost its connection to the server (\(Self.trimmed(pq.PQerrorMessage(connection)))); "
                               + "the next call reconnects")
        }
        var payloads: [String] = []
        while let notice = pq.PQnotifies(connection) {
            let note = notice.pointee
            if let relname = note.relname, String(cString: relname) == channel, let extra = note.extra {
                payloads.append(String(cString: extra))
            }
            pq.PQfreemem(notice)
        }
        return payloads
    }
}

/// The error for a failed statement: a conflict with another process (MAPPING_ECONFLICT), a lock
/// or statement that waited too long (MAPPING_EBUSY), a constraint (MAPPING_ECONSTRAINT), or
/// anything else about the database (MAPPING_ESTORE). `state` is PostgreSQL's SQLSTATE.
enum PostgresFailure {
    /// SQLSTATEs after which the whole transaction may simply run again: a deadlock, or a
    /// serialization failure.
    static let retryable: Set<String> = ["40P01", "40001"]

    static func error(state: String, message: String, store: String, sql: String) -> MappingError {
        let doing = String(sql.prefix(60))
        switch state {
        case "40P01", "40001":
            return MappingError(.conflict, "the store \(store) ran into another process's commit (\(message)); nothing was changed")
        case "55P03", "57014":
            return MappingError(.busy, "the store \(store) waited too long for another process (\(message)); nothing was changed")
        case "23503":
            return MappingError(.conflict, "the store \(store) refused the commit: it links to an object another process deleted, or "
                                + "deletes one another process linked to meanwhile (\(message)); nothing was changed")
        case let code where code.hasPrefix("23"):
            return MappingError(.constraint, "the store \(store) refused \(doing): \(message)")
        default:
            return MappingError(.store, "the store \(store) failed to run \(doing): \(message)")
        }
    }
}

/// A statement's result: its rows, read as `StoredValue`s by column type.
final class PostgresResult: StoredRows {
    fileprivate let raw: OpaquePointer?
    private let pq: cpq_api
    private var row: Int32 = -1
    let count: Int32
    private var kinds: [Kind] = []

    private enum Kind { case integer, boolean, real, text }

    fileprivate init(_ raw: OpaquePointer?, _ pq: cpq_api) {
        self.raw = raw
        self.pq = pq
        count = max(0, raw.map { pq.PQntuples($0) } ?? 0)
        if let raw {
            for column in 0..<max(0, pq.PQnfields(raw)) {
                switch pq.PQftype(raw, column) {
                case 20, 21, 23, 26: kinds.append(.integer)  // int8, int2, int4, oid
                case 16: kinds.append(.boolean)
                case 700, 701: kinds.append(.real)
                default: kinds.append(.text)
                }
            }
        }
    }

    deinit { pq.PQclear(raw) }

    func step() throws(MappingError) -> Bool {
        guard row < count else { return false }
        row += 1
        return row < count
    }

    func finish() { row = count }

    /// Row `row`, column `column` (for reading a result by position rather than stepping).
    func value(row: Int32, column: Int32) -> StoredValue {
        guard let raw, row >= 0, row < count, column >= 0, Int(column) < kinds.count,
              pq.PQgetisnull(raw, row, column) == 0, let text = pq.PQgetvalue(raw, row, column) else { return .null }
        let length = Int(pq.PQgetlength(raw, row, column))
        let bytes = UnsafeRawBufferPointer(start: text, count: max(0, length))
        switch kinds[Int(column)] {
        case .integer: return Self.integer(bytes).map(StoredValue.integer) ?? .null
        case .boolean: return .integer(bytes.first == UInt8(ascii: "t") ? 1 : 0)
        case .real: return Double(String(decoding: bytes, as: UTF8.self)).map(StoredValue.real) ?? .null
        case .text: return .text(validating: bytes)
        }
    }

    func column(_ index: Int32) -> StoredValue { value(row: row, column: index) }

    func column(_ index: Int32, is expected: [UInt8]) -> Bool {
        guard let raw, row >= 0, row < count, pq.PQgetisnull(raw, row, index) == 0, let text = pq.PQgetvalue(raw, row, index) else { return false }
        let length = Int(pq.PQgetlength(raw, row, index))
        guard length == expected.count else { return false }
        return expected.elementsEqual(UnsafeRawBufferPointer(start: text, count: length))
    }

    /// A decimal integer's digits (with an optional sign), nil if they are not one or overflow.
    private static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var value: Int64 = 0
        var negative = false
        var digits = 0
        for (index, byte) in bytes.enumerated() {
            if index == 0, byte == UInt8(ascii: "-") { negative = true; continue }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = next
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
