import MappingCore
import MappingSQL

/// A connection the server dropped (a restart, a failover, a network cut) is replaced on the next
/// call; what the graph holds stays, and handles, observers and watches with it. Announcements sent
/// while the connection was away are lost, so the graph reads again, at its next refresh, every row
/// it holds (a graph holding everything: every row of the schema). A commit whose COMMIT was under
/// way when the connection dropped is resolved by asking the server whether that transaction
/// committed, never by guessing.
extension PostgresStore {
    /// Runs `body`, which only reads; if the connection turns out lost, reconnects and runs it
    /// again, once.
    func reading<T>(_ body: () throws(MappingError) -> T) throws(MappingError) -> T {
        try reconnectIfLost()
        do throws(MappingError) {
            return try body()
        } catch {
            guard connection.isLost else { throw error }
            try reconnectIfLost()
            return try body()
        }
    }

    /// Replaces a lost connection (one attempt: a server still away fails the call, and the next
    /// call tries again).
    func reconnectIfLost() throws(MappingError) {
        guard connection.isLost else { return }
        try connection.reconnect()
        try distrustHeldRows()
    }

    /// Marks for the next refresh what announcements may have been missed about: every row the
    /// graph has read and, for a graph holding everything, every row of the schema it lacks.
    private func distrustHeldRows() throws(MappingError) {
        guard follows else { return }
        for (key, object) in objects where (rows[object]?.version ?? 0) > 0 { announcedWritten.insert(key) }
        guard holdsEverything else { return }
        for (root, table) in layout.tables.sorted(by: { $0.key < $1.key }) {
            let result = try connection.query("SELECT \"_id\" FROM \(quote(table.name))")
            for row in 0..<result.count {
                guard case .integer(let id) = result.value(row: row, column: 0), id > 0, id < 1 << 48 else { continue }
                let key = StoreLayout.globalKey(root: root, id: id)
                if objects[key] == nil { announcedWritten.insert(key) }
            }
        }
    }

    /// The transaction this connection is in (its id, as text), asked before COMMIT.
    func transactionID() throws(MappingError) -> String {
        guard case .integer(let id) = try connection.query("SELECT txid_current()").value(row: 0, column: 0) else {
            throw MappingError(.store, "the store \(quote(schema)) did not say which transaction a commit is")
        }
        return String(id)
    }

    /// Whether transaction `id`, whose COMMIT was under way when the connection dropped, committed:
    /// read back on a new connection (the server keeps each transaction's outcome). Throws when
    /// the server cannot be reached, or does not settle, to say.
    func committed(_ id: String) throws(MappingError) -> Bool {
        let unknown = "the store \(quote(schema)) lost its connection during a commit and cannot learn whether the commit was written"
        do throws(MappingError) {
            try reconnectIfLost()
            // The old session may take a moment to end on the server.
            for _ in 0..<200 {
                switch try connection.query("SELECT txid_status($1::bigint)", [id]).value(row: 0, column: 0) {
                case .text("committed"): return true
                case .text("in progress"): PostgresConnection.pause(milliseconds: 25)
                default: return false
                }
            }
        } catch {
            throw MappingError(.store, unknown + " (\(error.message)); the graph keeps it as not written, and reads again the rows it "
                               + "holds once the server is back")
        }
        throw MappingError(.store, unknown + " (it is still in progress on the server); the graph keeps it as not written")
    }
}
