/// The import's one entry from the context. Public and generic on a public type, so the module that
/// knows the parsers' readers (the engine) specializes it, and the importer under it, for each
/// reader: cross-module optimization serializes public generic code, and an importer run
/// unspecialized costs +87% instructions on jansson and +224% on simdjson (`make bench-check`).
extension ObjectStore {
    /// Maps a parsed document with `mappings` in turn (each at its own root path) as one
    /// transaction of the graph; what the import's audit counted goes to `options.audit` (and a
    /// strict import fails on its warnings), also when the import fails.
    public mutating func importDocument<Reader: JSONReader>(_ mappings: [MappingRef], root: Reader.Node, reader: Reader,
                                                            spec: CompiledSpec, hosts: [String: HostTransformer],
                                                            options: ImportOptions) throws(MappingError) -> [ObjectID] {
        try transaction(model: spec.model) { (store: inout ObjectStore) throws(MappingError) -> [ObjectID] in
            // Move the store into the importer and back, so it stays uniquely referenced and
            // is changed in place rather than copied.
            var importer = Importer(spec: spec, reader: reader, store: .placeholder)
            importer.hosts = hosts
            importer.options = options
            if options.audit != nil || options.strict { importer.auditCounts = [:] }
            swap(&importer.store, &store)
            defer { swap(&importer.store, &store) }
            let objects: [ObjectID]
            do throws(MappingError) {
                objects = try importer.run(mappings: mappings, root: root)
            } catch {
                // What was counted before the failure still says how the payload fit (`explain`).
                if let counts = importer.auditCounts { options.audit?.add(counts, spec: spec) }
                throw error
            }
            if let counts = importer.auditCounts { try Self.report(counts, spec: spec, options: options) }
            return objects
        }
    }

    /// Adds an import's counts to its audit; in a strict import, its warnings fail it.
    static func report(_ counts: [Int: ImportAudit.Counts], spec: CompiledSpec, options: ImportOptions) throws(MappingError) {
        options.audit?.add(counts, spec: spec)
        guard options.strict else { return }
        let own = ImportAudit(warnsAboutOptional: options.audit?.warnsAboutOptional ?? false)
        own.add(counts, spec: spec)
        try own.failIfWarned()
    }
}
