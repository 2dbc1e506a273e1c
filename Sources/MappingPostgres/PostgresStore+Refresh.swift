import MappingCore
import MappingSQL

/// What a commit tells the other contexts on its schema's channel: the keys of the rows it wrote
/// and of the rows it deleted. Sent with NOTIFY inside the commit's transaction, so it reaches
/// listeners only if the commit does, in commit order. A payload holds at most `limit` bytes
/// (PostgreSQL's is 8,000), so a large commit sends several.
///
/// Payload: `<origin> <token>…`, a token being `w<table>:<id>,<id>…` (written) or `d<table>:<id>,…`
/// (deleted), `<table>` the root entity's index.
struct Announcement {
    static let limit = 7_000
    private var written: [Int: [Int64]] = [:]
    private var deleted: [Int: [Int64]] = [:]

    mutating func changed(_ key: Int64) { written[StoreLayout.root(of: key), default: []].append(StoreLayout.rowID(of: key)) }
    mutating func deleted(_ key: Int64) { deleted[StoreLayout.root(of: key), default: []].append(StoreLayout.rowID(of: key)) }

    func payloads(from origin: String) -> [String] {
        var payloads: [String] = []
        var current = origin
        func add(_ mark: String, _ root: Int, _ ids: [Int64]) {
            var token = ""
            for id in ids {
                let piece = (token.isEmpty ? "\(mark)\(root):" : ",") + String(id)
                if current.utf8.count + 1 + token.utf8.count + piece.utf8.count > Self.limit {
                    if !token.isEmpty { current += " " + token }
                    payloads.append(current)
                    current = origin
                    token = "\(mark)\(root):" + String(id)
                } else {
                    token += piece
                }
            }
            if !token.isEmpty { current += " " + token }
        }
        for (root, ids) in written.sorted(by: { $0.key < $1.key }) { add("w", root, ids) }
        for (root, ids) in deleted.sorted(by: { $0.key < $1.key }) { add("d", root, ids) }
        if current != origin { payloads.append(current) }
        return payloads
    }

    func send(on channel: String, from origin: String, _ connection: PostgresConnection) throws(MappingError) {
        let payloads = payloads(from: origin)
        guard !payloads.isEmpty else { return }
        var array = ArrayText()
        for payload in payloads { array.append(.text(payload)) }
        try connection.query("SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", [channel, array.literal])
    }

    /// The keys a payload names, unless it is `origin`'s own.
    static func parse(_ payload: String, skipping origin: String, written: inout Set<Int64>, deleted: inout Set<Int64>) {
        let tokens = payload.split(separator: " ")
        guard let first = tokens.first, first != origin else { return }
        for token in tokens.dropFirst() {
            // Anyone who may connect may NOTIFY: a payload is read as untrusted text.
            guard let mark = token.first, let colon = token.firstIndex(of: ":"), colon > token.startIndex,
                  let root = Int(token[token.index(after: token.startIndex)..<colon]), root >= 0, root < 1 << 15 else { continue }
            for id in token[token.index(after: colon)...].split(separator: ",") {
                guard let id = Int64(id), id > 0, id < 1 << 48 else { continue }
                let key = StoreLayout.globalKey(root: root, id: id)
                if mark == "d" { deleted.insert(key); written.remove(key) } else if mark == "w" { written.insert(key); deleted.remove(key) }
            }
        }
    }
}

extension PostgresStore {
    /// What other processes announced since the last call, read from the database as it is now
    /// (one consistent snapshot): the rows they wrote, with any row those link to that this context
    /// does not have yet, and the keys of the rows they deleted. `wait` first makes a round trip, so
    /// that every commit that ended before the call has been announced.
    public func othersChanges(wait: Bool) throws(MappingError) -> StoreRefresh? {
        guard follows else { return nil }
        if wait { try connection.execute("SELECT 1") }
        for payload in try connection.notifications(on: channel, reading: wait || connection.hasInput) {
            Announcement.parse(payload, skipping: origin, written: &announcedWritten, deleted: &announcedDeleted)
        }
        // Kept until applied (`applied`): a read that fails leaves them for the next call.
        let written = announcedWritten
        let deleted = announcedDeleted
        guard !written.isEmpty || !deleted.isEmpty else { return nil }
        do throws(MappingError) {
            return try read(written: written, deleted: deleted)
        } catch {
            // Reported once, then dropped: rows that cannot be read (a lost connection, a row edited
            // into something the spec cannot hold) must not fail every later call. Those objects
            // stay as they were until they change again or the store is reopened.
            applied(StoreRefresh(rows: [], deleted: [], objects: [:]), objects: [:])
            throw MappingError(error.code, error.message + " (while applying other processes' commits: the objects they changed stay as they were)")
        }
    }

    /// The refresh of `written` and `deleted` keys, read in one snapshot.
    private func read(written: Set<Int64>, deleted: Set<Int64>) throws(MappingError) -> StoreRefresh? {
        var deleted = deleted
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        var loaded: [StoredObject] = []
        do throws(MappingError) {
            var wanted = written
            var seen: Set<Int64> = []
            // Rows link to rows later commits wrote (announced, but not read yet): those are read too.
            while !wanted.isEmpty {
                let batch = try read(wanted)
                seen.formUnion(wanted)
                wanted = []
                for row in batch {
                    for targets in row.links { for target in targets where objects[target] == nil && !seen.contains(target) { wanted.insert(target) } }
                }
                loaded += batch
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        // A row announced as written that is gone was deleted by a commit not announced yet.
        let found = Set(loaded.map(\.key))
        for key in written where !found.contains(key) && objects[key] != nil { deleted.insert(key) }
        var known: [Int64: ObjectID] = [:]
        for key in deleted { if let object = objects[key] { known[key] = object } }
        for row in loaded {
            refreshed[row.key] = row.version
            if let object = objects[row.key] { known[row.key] = object }
            for targets in row.links { for target in targets { if let object = objects[target] { known[target] = object } } }
        }
        let refresh = StoreRefresh(rows: loaded,
                                   deleted: deleted.filter { objects[$0] != nil }.sorted(), objects: known)
        if refresh.isEmpty { applied(refresh, objects: [:]) }  // nothing of it is in this graph
        return refresh.isEmpty ? nil : refresh
    }

    /// The rows of `keys`, table by table, with their join-table targets.
    private func read(_ keys: Set<Int64>) throws(MappingError) -> [StoredObject] {
        var byRoot: [Int: [Int64]] = [:]
        for key in keys { byRoot[StoreLayout.root(of: key), default: []].append(StoreLayout.rowID(of: key)) }
        var rows: [StoredObject] = []
        for (root, ids) in byRoot.sorted(by: { $0.key < $1.key }) where layout.tables[root] != nil {
            let list = "'\(ArrayText.integers(ids.sorted()))'::bigint[]"
            let toMany = try layout.joinTargets({ (sql) throws(MappingError) in try connection.query(sql) },
                                                filter: "WHERE \"owner\" = ANY(\(list))")
            var reverse: [OwnerLink: [(position: Int64, target: Int64)]] = [:]
            rows += try layout.rows(of: root, filter: "WHERE \"_id\" = ANY(\(list))", toMany: toMany, reverse: &reverse) {
                (sql) throws(MappingError) in try connection.query(sql)
            }
        }
        return rows
    }

    /// Records the objects and versions of what a refresh applied.
    public func applied(_ refresh: StoreRefresh, objects applied: [Int64: ObjectID]) {
        for key in refresh.deleted {
            if let object = objects.removeValue(forKey: key) { rows[object] = nil }
        }
        for row in refresh.rows {
            guard let object = applied[row.key] else { continue }
            rows[object] = (row.key, refreshed[row.key] ?? 1)
            objects[row.key] = object
        }
        refreshed = [:]
        announcedWritten = []
        announcedDeleted = []
    }
}
