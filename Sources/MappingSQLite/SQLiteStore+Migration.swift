import MappingCore
import MappingSQL

/// A store opened with a spec that grew since it was written (Core Data's lightweight migration):
/// elements the spec renamed (`renamedFrom`) are renamed, added entities, attributes and
/// relationships get their tables and columns (values null), and the store records the new spec. Anything else — a changed type, a changed identification, an
/// attribute or relationship removed, a removed entity that still has objects, a relationship whose
/// storage changed — is MAPPING_ESPEC naming the element, and the file is left as it was, unless the
/// caller asks to rebuild the store (its objects are then dropped).
extension SQLiteStore {
    func migrate(from oldSpecText: String, to specText: String) throws(MappingError) {
        let statements = try migration(from: oldSpecText)
        try connection.execute("BEGIN IMMEDIATE")
        do throws(MappingError) {
            for statement in statements { try connection.execute(statement) }
            try connection.statement("UPDATE \"_mapping\" SET \"value\" = ? WHERE \"key\" = 'spec'").run([.text(specText)])
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            // Growth only adds: a constraint it breaks (an identity index put back over two rows with
            // one identity) was broken in the file already.
            guard error.code == .constraint else { throw error }
            throw MappingError(.store, "the store \"\(connection.path)\" cannot be brought up to this spec: \(error.message); "
                               + "it was changed outside libmapping (a unique index dropped?), and nothing was changed")
        }
    }

    /// The statements that bring the store written with `oldSpecText` up to this spec (renames,
    /// then growth), read from the file but run nowhere; MAPPING_ESPEC naming the element for a
    /// change that is not growth.
    func migration(from oldSpecText: String) throws(MappingError) -> [String] {
        let oldModel: Model
        do {
            oldModel = try CompiledSpec.load(try layout.json(oldSpecText).value).model
        } catch {
            throw MappingError(.store, "the spec recorded in \"\(connection.path)\" no longer loads: \(error.message)")
        }
        // Renames first, then the store (as renamed) is compared with the spec; all in one
        // transaction, so a refusal leaves the file as it was.
        let stored = StoreLayout(model: oldModel, json: layout.json)
        // The file must be as that spec laid it out before it is grown: one changed outside
        // libmapping is refused as it is, not migrated first.
        try checkColumns(of: stored)
        let old = StoreLayout(model: oldModel, naming: Naming.renaming(oldModel, to: layout.model), json: layout.json)
        return try stored.renames(to: old) + layout.growth(from: old, count: count)
    }

    /// How many rows a table holds (of one entity, when given): migration refuses to drop objects.
    private func count(table: String, entity: String?) throws(MappingError) -> Int64 {
        let query = try connection.statement("SELECT count(*) FROM \(quote(table))" + (entity == nil ? "" : " WHERE \"_entity\" = ?"))
        if let entity { try query.bind(1, .text(entity)) }
        defer { query.reset() }
        guard try query.step(), case .integer(let count) = query.column(0) else { return 0 }
        return count
    }

    /// Drops every table of the store and creates the current schema: what a caller who asked to
    /// rebuild gets when the spec changed beyond growth. The store's objects are gone.
    func rebuild(specText: String) throws(MappingError) {
        let tables = try connection.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        var names: [String] = []
        while try tables.step() { if case .text(let name) = tables.column(0) { names.append(name) } }
        tables.reset()
        try create(specText: specText, dropping: names)
    }
}
