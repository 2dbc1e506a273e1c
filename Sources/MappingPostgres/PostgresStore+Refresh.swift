import MappingCore
import MappingSQL

/// What a commit tells the other contexts on its schema's channel: the keys of the rows it wrote
/// and of the rows it deleted. Sent with NOTIFY inside the commit's transaction, so it reaches
/// listeners only if the commit does, in commit order. A payload holds at most `limit` bytes
/// (PostgreSQL's is 8,000), so a large commit sends several.
///
/// Payload: `<origin> <token>…`, a token being `i<table>:<id>,<id>…` (inserted), `w<table>:<id>,…`
/// (written) or `d<table>:<id>,…` (deleted), `<table>` the root entity's index.
struct Announcement {
    static let limit = 7_000
    private var inserted: [Int: Set<Int64>] = [:]
    private var written: [Int: Set<Int64>] = [:]
    private var deleted: [Int: Set<Int64>] = [:]

    mutating func inserted(_ key: Int64) { inserted[StoreLayout.root(of: key), default: []].insert(StoreLayout.rowID(of: key)) }
    mutating func changed(_ key: Int64) { written[StoreLayout.root(of: key), default: []].insert(StoreLayout.rowID(of: key)) }
    mutating func deleted(_ key: Int64) { deleted[StoreLayout.root(of: key), default: []].insert(StoreLayout.rowID(of: key)) }

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
        for (root, ids) in inserted.sorted(by: { $0.key < $1.key }) { add("i", root, ids.sorted()) }
        for (root, ids) in written.sorted(by: { $0.key < $1.key }) { add("w", root, ids.subtracting(inserted[root] ?? []).sorted()) }
        for (root, ids) in deleted.sorted(by: { $0.key < $1.key }) { add("d", root, ids.sorted()) }
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

    /// The keys a payload names, unless it is `origin`'s own: the rows written (`inserted` those
    /// of them that are new), and those deleted.
    static func parse(_ payload: String, skipping origin: String, written: inout Set<Int64>, inserted: inout Set<Int64>,
                      deleted: inout Set<Int64>) {
        let tokens = payload.split(separator: " ")
        guard let first = tokens.first, first != origin else { return }
        for token in tokens.dropFirst() {
            // Anyone who may connect may NOTIFY: a payload is read as untrusted text.
            guard let mark = token.first, let colon = token.firstIndex(of: ":"), colon > token.startIndex,
                  let root = Int(token[token.index(after: token.startIndex)..<colon]), root >= 0, root < 1 << 15 else { continue }
            for id in token[token.index(after: colon)...].split(separator: ",") {
                guard let id = Int64(id), id > 0, id < 1 << 48 else { continue }
                let key = StoreLayout.globalKey(root: root, id: id)
                switch mark {
                case "d": deleted.insert(key); written.remove(key); inserted.remove(key)
                case "w": written.insert(key); deleted.remove(key)
                case "i": written.insert(key); inserted.insert(key); deleted.remove(key)
                default: break
                }
            }
        }
    }
}

extension PostgresStore {
    /// What other processes announced since the last call, read from the database as it is now
    /// (one consistent snapshot): the rows they wrote that this graph holds, and the keys of the
    /// rows they deleted that it holds. A graph holding part of the store skips rows it has not
    /// read (faults, and rows it never met): those are read as they are touched, as they are then;
    /// with `newRows` (observers to tell), it reads the rows they inserted too. A graph holding
    /// everything reads every row they wrote that it does not hold yet, and any row those link
    /// to. `wait` first makes a round trip, so that every commit that ended before the call has
    /// been announced.
    public func othersChanges(wait: Bool, newRows: Bool) throws(MappingError) -> StoreRefresh? {
        guard follows else { return nil }
        do throws(MappingError) {
            return try reading { () throws(MappingError) in try announcedChanges(wait: wait, newRows: newRows) }
        } catch {
            // While the server is away, the graph answers from what it holds, as it was when the
            // connection dropped (what needs the database fails, saying so); an explicit refresh
            // fails.
            guard connection.isLost, !wait else { throw error }
            return nil
        }
    }

    private func announcedChanges(wait: Bool, newRows: Bool) throws(MappingError) -> StoreRefresh? {
        if wait { try connection.execute("SELECT 1") }
        for payload in try connection.notifications(on: channel, reading: wait || connection.hasInput) {
            Announcement.parse(payload, skipping: origin, written: &announcedWritten, inserted: &announcedInserted,
                               deleted: &announcedDeleted)
        }
        // Kept until applied (`applied`): a read that fails leaves them for the next call.
        var written = announcedWritten
        let deleted = announcedDeleted.filter { objects[$0] != nil }
        if !holdsEverything {
            written = written.filter { key in
                guard let object = objects[key] else { return newRows && announcedInserted.contains(key) }
                return (rows[object]?.version ?? 0) > 0
            }
        }
        guard !written.isEmpty || !deleted.isEmpty else {
            applied(StoreRefresh(rows: [], deleted: [], objects: [:]), objects: [:])
            return nil
        }
        do throws(MappingError) {
            return try refresh(written: written, deleted: deleted, lists: holdsEverything || newRows)
        } catch {
            // A lost connection is replaced, and what it was to read is read then (`reading`).
            guard !connection.isLost else { throw error }
            // Reported once, then dropped: rows that cannot be read (a lost connection, a row edited
            // into something the spec cannot hold) must not fail every later call. Those objects
            // stay as they were until they change again or the store is reopened.
            applied(StoreRefresh(rows: [], deleted: [], objects: [:]), objects: [:])
            throw MappingError(error.code, error.message + " (while applying other processes' commits: the objects they changed stay as they were)")
        }
    }

    /// The refresh of `written` and `deleted` keys, read in one snapshot.
    /// `lists`: read the rows' one-to-manys too (a graph holding everything, or one with observers,
    /// holds every list it has read; any other forgets the lists of the rows refreshed).
    private func refresh(written: Set<Int64>, deleted: Set<Int64>, lists: Bool) throws(MappingError) -> StoreRefresh? {
        var deleted = deleted
        let loaded = try snapshot { () throws(MappingError) -> [StoredObject] in
            var loaded: [StoredObject] = []
            var wanted = written
            var seen: Set<Int64> = []
            while !wanted.isEmpty {
                let batch = try read(keys: wanted.sorted(), lists: lists)
                seen.formUnion(wanted)
                wanted = []
                // A graph holding everything reads the rows these link to that it does not hold
                // (announced, but not read yet); one holding part makes faults of them.
                if holdsEverything {
                    for row in batch {
                        for targets in row.links { for target in targets where objects[target] == nil && !seen.contains(target) { wanted.insert(target) } }
                    }
                }
                loaded += batch
            }
            return loaded
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
        let refresh = StoreRefresh(rows: loaded, deleted: deleted.sorted(), objects: known, partial: !holdsEverything, lists: lists)
        if refresh.isEmpty { applied(refresh, objects: [:]) }  // nothing of it is in this graph
        return refresh.isEmpty ? nil : refresh
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
        // Faults made for the rows those link to, not read yet.
        for (key, object) in applied where objects[key] == nil {
            rows[object] = (key, 0)
            objects[key] = object
        }
        refreshed = [:]
        announcedWritten = []
        announcedInserted = []
        announcedDeleted = []
    }
}
