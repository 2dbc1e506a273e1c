/// A progress total known from the first callback: before mapping, an import with a progress
/// callback walks the parsed payload and counts the representations its mappings will map — the
/// same roots, collections, dynamic choices and nested relationships mapping takes — so that
/// `known` does not grow as the import finds more and a bar is a real percentage. Imports without
/// a callback never walk. If the walk cannot decide (a dynamic choice that fails, a bad root), the
/// import counts as it goes, as before.
extension Importer {
    /// The representations `references` will map in `root`, or nil when the walk cannot tell.
    mutating func countInAdvance(_ references: [MappingRef], root: Reader.Node) -> Int? {
        documentRoot = root
        var total = 0
        var visits = 0
        if let keyPaths = options.keyPaths ?? (options.mapsAtRoot ? Array(repeating: nil, count: references.count) : nil) {
            guard keyPaths.count == references.count else { return nil }
            for (reference, keyPath) in zip(references, keyPaths) {
                guard let node = keyPath.map({ resolve(KeyPath($0), in: root) }) ?? root, reader.kind(of: node) != .null else { continue }
                guard let count = try? countRepresentations(node, reference, visits: &visits) else { return nil }
                total += count
            }
        } else {
            for reference in references {
                guard let node = rootPath(of: reference).map({ resolve($0, in: root) }) ?? root, reader.kind(of: node) != .null,
                      let count = try? countRepresentations(node, reference, visits: &visits) else { return nil }
                total += count
            }
        }
        return total
    }

    /// As `mapEach` chooses them: an array's non-null elements, a forced collection's members, or
    /// the node itself, each with what it nests. `visits` bounds the walk: payloads that nest
    /// through `@root.`, `@parent.` or `@self` past the depth limit (which mapping refuses anyway)
    /// or that would take longer than mapping end the count, and the import counts as it goes.
    mutating func countRepresentations(_ node: Reader.Node, _ reference: MappingRef,
                                       visits: inout Int) throws(MappingError) -> Int {
        var total = 0
        if reader.kind(of: node) == .array {
            try reader.forEachElement(of: node) { (_, element) throws(MappingError) in
                guard reader.kind(of: element) != .null, let mapping = try choose(reference, for: element) else { return }
                total += try countObject(element, mapping, visits: &visits)
            }
            return total
        }
        guard let mapping = try choose(reference, for: node) else { return 0 }
        guard reader.kind(of: node) == .object && mapping.forcesCollection else { return try countObject(node, mapping, visits: &visits) }
        try reader.forEachMember(of: node) { (_, value) throws(MappingError) in
            if reader.kind(of: value) != .null { total += try countObject(value, mapping, visits: &visits) }
        }
        return total
    }

    /// One representation and the representations its relationship mappings nest in it.
    private mutating func countObject(_ node: Reader.Node, _ mapping: MappingPlan, visits: inout Int) throws(MappingError) -> Int {
        visits += 1
        guard visits <= Self.maxCountingVisits else { throw MappingError(.range, "too many representations to count in advance") }
        if prefetching { notePrefetch(node, mapping) }
        depth += 1
        representations.append(node)
        defer {
            depth -= 1
            representations.removeLast()
        }
        guard depth <= Self.maxDepth else { throw MappingError(.depth, "nested past the depth limit") }
        var total = 1
        for relationshipMapping in mapping.relationships {
            guard let nested = relationshipMapping.mapping, relationshipMapping.keyPath.anchor != .metadata,
                  let target = resolve(relationshipMapping.keyPath, in: node), reader.kind(of: target) != .null else { continue }
            let intermediates = self.intermediates(of: relationshipMapping.keyPath, in: node)
            representations.append(contentsOf: intermediates)
            defer { representations.removeLast(intermediates.count) }
            total += try countRepresentations(target, nested, visits: &visits)
        }
        return total
    }

    /// The most representations a count in advance visits (a payload of this many is a few GB).
    static var maxCountingVisits: Int { 50_000_000 }
}
