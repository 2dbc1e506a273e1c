/// Maps one parsed payload into the store with one mapping plan. Generic over the reader so the
/// payload is read in place; the caller runs it inside a store transaction, so any error leaves
/// the graph as it was.
///
/// Per representation: identification values are read and coerced first, the identity map finds
/// the existing object or a new one is created and registered (so a later repetition in the same
/// payload finds it), then attributes are set (missing key: left alone; `null`: cleared), then
/// nested relationships are mapped and assigned with inverses kept in step; once the payload is
/// mapped, the post-pass connects, deletes tombstones and orphans.
///
/// The type is spread over files by concern (`Importer+Objects`, `+Identity`, `+Attributes`,
/// `+Relationships`, `+Representation`, `+PostPass`). It is the hot path of every import: the
/// rules it keeps for speed are in `HotPath.md` beside it, and `make bench-check` guards them.
package struct Importer<Reader: JSONReader> {
    let spec: CompiledSpec
    let reader: Reader
    package var store: ObjectStore
    /// The host's transformers, as registered when the import started.
    package var hosts: [String: HostTransformer] = [:]
    package var options = ImportOptions()
    /// Per representation being mapped: its position in the enclosing array (for
    /// `@metadata.mapping.collectionIndex`) and the object it maps into (for `parentObject`).
    var collectionIndexes: [Int?] = []
    var objectsBeingMapped: [ObjectID] = []
    var parentObjects: [ObjectID?] = []
    var mappedCount = 0
    var knownCount = 0
    /// The representations counted before mapping (`Importer+Progress`), which progress reports
    /// instead of `knownCount` (still kept as mapping finds them: no branch on the hot path).
    var knownInAdvance: Int?
    /// Set while the payload is walked before mapping to note the rows it needs (`prefetch`).
    var prefetching = false
    /// Every object the import mapped, skipped as unmodified or reached by identity (not orphans).
    var touched: Set<ObjectID> = []
    /// Per mapping index, what `ImportAudit` counts; nil unless the import is audited or strict.
    package var auditCounts: [Int: ImportAudit.Counts]?
    /// Objects whose mapping has connections, to connect once the payload is mapped.
    var pendingConnections: [PendingConnection] = []

    struct PendingConnection: Hashable {
        let object: ObjectID
        let mapping: Int
    }
    var path = PayloadPath()
    var depth = 0
    /// True while the representation at the top is a single object (where a target object applies).
    var singleRoot = false
    /// Set once `options.targetObject` has been mapped into.
    var targetTaken = false
    /// The representations being mapped, outermost first: `@parent.` key paths read from here.
    var representations: [Reader.Node] = []
    /// The payload's root, for `@root.` key paths.
    var documentRoot: Reader.Node?
    /// The members of the representations being mapped that their mappings read, gathered in one
    /// walk of each (`Importer+Members`): a frame per representation, its slots in `memberNodes`.
    var memberFrames: [MemberFrame] = []
    var memberNodes: [Reader.Node?] = []
    var memberTop = 0

    struct MemberFrame {
        let node: Reader.Node
        let mapping: Int
        let base: Int
    }

    /// How deep mapped objects may nest (each nested relationship is one level). Bounds the
    /// recursion so hostile input gets an error instead of exhausting the stack.
    static var maxDepth: Int { 128 }

    /// The deepest `json` attribute value stored.
    static var maxValueDepth: Int { 256 }

    package init(spec: CompiledSpec, reader: Reader, store: ObjectStore) {
        self.spec = spec
        self.reader = reader
        self.store = store
    }

    var model: Model { spec.model }

    /// Maps the payload with each mapping in turn (each at its own `rootPath`, or at the key paths
    /// of `options.keyPaths`), then runs the post-pass, as one import.
    package mutating func run(mappings references: [MappingRef], root: Reader.Node) throws(MappingError) -> [ObjectID] {
        // On part of a store-backed graph, a run that would meet identities not read yet stops
        // before mapping: they are read, and it runs again (`ObjectStore.touching`).
        if prefetch(references, root: root) { throw FaultLog.rowsToRead }
        if options.onProgress != nil { knownInAdvance = countInAdvance(references, root: root) }
        var objects: [ObjectID] = []
        if let keyPaths = options.keyPaths ?? (options.mapsAtRoot ? Array(repeating: nil, count: references.count) : nil) {
            guard keyPaths.count == references.count else {
                throw MappingError(.misuse, "one key path per mapping: \(references.count) mappings, \(keyPaths.count) key paths")
            }
            var found = 0
            for (reference, keyPath) in zip(references, keyPaths) {
                guard let node = keyPath.map({ resolve(KeyPath($0), in: root) }) ?? root else { continue }
                found += 1
                if reader.kind(of: node) == .null { continue }
                documentRoot = root
                path = PayloadPath()
                for step in keyPath.map({ KeyPath($0).steps }) ?? [] { path.push(.key(step.key.name)) }
                singleRoot = reader.kind(of: node) != .array
                defer { singleRoot = false }
                objects += try mapEach(node, reference, create: true)
            }
            guard found > 0 || references.isEmpty else {
                throw MappingError(.mapping, "no mappable representations were found at the key paths searched: "
                                   + keyPaths.map { $0 ?? "(root)" }.joined(separator: ", "))
            }
        } else {
            for reference in references { objects += try run(mapping: reference, root: root) }
        }
        try runPostPass()
        return objects
    }

    /// Maps the representations at the mapping's `rootPath` (or the root): an object or an array of
    /// objects (`null` elements are skipped). Returns the top-level objects in payload order.
    mutating func run(mapping reference: MappingRef, root: Reader.Node) throws(MappingError) -> [ObjectID] {
        documentRoot = root
        path = PayloadPath()
        var node = root
        let name = spec.name(of: reference)
        if let rootPath = rootPath(of: reference) {
            guard let found = resolve(rootPath, in: root) else {
                throw MappingError(.mapping, "the payload has nothing at rootPath \"\(rootPath)\" of mapping \"\(name)\"",
                                   path: path.text(adding: rootPath))
            }
            node = found
            for step in rootPath.steps { path.push(.key(step.key.name)) }
        }
        switch reader.kind(of: node) {
        case .null:
            throw MappingError(.type, "expected an object or an array of objects for mapping \"\(name)\", found null",
                               path: path.text())
        case .array:
            singleRoot = false
            return try mapEach(node, reference, create: true)
        default:
            singleRoot = true
            defer { singleRoot = false }
            // One representation at the top must be mapped: a dynamic mapping may not decline it.
            guard try choose(reference, for: node) != nil else {
                throw MappingError(.mapping, "dynamic mapping \"\(name)\" has no case for this representation",
                                   path: path.text())
            }
            return try mapEach(node, reference, create: true)
        }
    }

    mutating func rootPath(of reference: MappingRef) -> KeyPath? {
        switch reference {
        case .plain(let index): spec.plan(index)?.rootPath
        case .dynamic(let index): spec.dynamicPlan(index)?.rootPath
        }
    }

    /// The plain mapping for one representation; `nil` when a dynamic mapping declines it.
    mutating func choose(_ reference: MappingRef, for node: Reader.Node) throws(MappingError) -> MappingPlan? {
        switch reference {
        case .plain(let index):
            return spec.plan(index)
        case .dynamic(let index):
            guard let dynamic = spec.dynamicPlan(index) else { return nil }
            let probe = dynamic.keyPath.map { resolve($0, in: node) } ?? node
            let chosen = try dynamic.choice(for: node, probe: probe, reader: reader, valueDepth: Self.maxValueDepth)
            return chosen.flatMap(spec.plan)
        }
    }

    /// Maps every representation in `node`: the elements of an array, the members of an object
    /// when the mapping forces a collection, else `node` itself. `null` elements and representations
    /// a dynamic mapping declines are skipped.
    mutating func mapEach(_ node: Reader.Node, _ reference: MappingRef,
                                  create: Bool) throws(MappingError) -> [ObjectID] {
        var objects: [ObjectID] = []
        if reader.kind(of: node) == .array {
            let count = reader.count(of: node)
            knownCount += count
            options.onEvent?(.willMapCollection(mapping: spec.name(of: reference), count: count))
            objects.reserveCapacity(count)
            if count >= 64, case .plain(let index) = reference, let plan = spec.plan(index),
               model.entities.indices.contains(plan.entity) {
                store.reserve(for: model.entities[plan.entity], additional: count)
            }
            try reader.forEachElement(of: node) { (index, element) throws(MappingError) in
                guard reader.kind(of: element) != .null, let mapping = try choose(reference, for: element) else { return }
                path.push(.index(index))
                if let object = try mapObject(element, mapping, create: create, index: index) { objects.append(object) }
                path.pop()
            }
            options.onEvent?(.didMapCollection(mapping: spec.name(of: reference), count: objects.count))
            return objects
        }
        guard let mapping = try choose(reference, for: node) else { return [] }
        if reader.kind(of: node) == .object && mapping.forcesCollection {
            var members: [(String, Reader.Node)] = []
            try reader.forEachMember(of: node) { (key, value) throws(MappingError) in members.append((key, value)) }
            knownCount += members.count
            options.onEvent?(.willMapCollection(mapping: mapping.name, count: members.count))
            for (index, (key, value)) in members.enumerated() where reader.kind(of: value) != .null {
                path.push(.key(key))
                if let object = try mapObject(value, mapping, create: create, key: key, index: index) {
                    objects.append(object)
                }
                path.pop()
            }
            options.onEvent?(.didMapCollection(mapping: mapping.name, count: objects.count))
        } else {
            knownCount += 1
            if let object = try mapObject(node, mapping, create: create) { objects.append(object) }
        }
        return objects
    }
}
