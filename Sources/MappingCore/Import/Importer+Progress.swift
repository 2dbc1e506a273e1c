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
        if let keyPaths = options.keyPaths ?? (options.mapsAtRoot ? Array(repeating: nil, count: references.count) : nil) {
            guard keyPaths.count == references.count else { return nil }
            for (reference, keyPath) in zip(references, keyPaths) {
                guard let node = keyPath.map({ resolve(KeyPath($0), in: root) }) ?? root, reader.kind(of: node) != .null else { continue }
                guard let count = try? countRepresentations(node, reference) else { return nil }
                total += count
            }
        } else {
            for reference in references {
                guard let node = rootPath(of: reference).map({ resolve($0, in: root) }) ?? root, reader.kind(of: node) != .null,
                      let count = try? countRepresentations(node, reference) else { return nil }
                total += count
            }
        }
        return total
    }

    /// As `mapEach` chooses them: an array's non-null elements, a forced collection's members, or
    /// the node itself, each with what it nests.
    mutating func countRepresentations(_ node: Reader.Node, _ reference: MappingRef) throws(MappingError) -> Int {
        var total = 0
        if reader.kind(of: node) == .array {
            try reader.forEachElement(of: node) { (_, element) throws(MappingError) in
                guard reader.kind(of: element) != .null, let mapping = try choose(reference, for: element) else { return }
                total += countObject(element, mapping)
            }
            return total
        }
        guard let mapping = try choose(reference, for: node) else { return 0 }
        guard reader.kind(of: node) == .object && mapping.forcesCollection else { return countObject(node, mapping) }
        try reader.forEachMember(of: node) { (_, value) throws(MappingError) in
            if reader.kind(of: value) != .null { total += countObject(value, mapping) }
        }
        return total
    }

    /// One representation and the representations its relationship mappings nest in it.
    private mutating func countObject(_ node: Reader.Node, _ mapping: MappingPlan) -> Int {
        depth += 1
        representations.append(node)
        defer {
            depth -= 1
            representations.removeLast()
        }
        guard depth <= Self.maxDepth else { return 1 }  // mapping it fails anyway
        var total = 1
        for relationshipMapping in mapping.relationships {
            guard let nested = relationshipMapping.mapping, relationshipMapping.keyPath.anchor != .metadata,
                  let target = resolve(relationshipMapping.keyPath, in: node), reader.kind(of: target) != .null else { continue }
            let intermediates = self.intermediates(of: relationshipMapping.keyPath, in: node)
            representations.append(contentsOf: intermediates)
            total += (try? countRepresentations(target, nested)) ?? 0
            representations.removeLast(intermediates.count)
        }
        return total
    }
}
