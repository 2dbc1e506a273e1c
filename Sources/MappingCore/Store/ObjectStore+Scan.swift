/// Scans: an import that finds objects by values no identity map keys — a mapping's own
/// identification or an `identificationPredicate` (`Importer.findByScan`), a connection by
/// attributes other than the destination's identification (`Connector`) — looks at every object
/// of an entity whose attributes hold the values. On part of a store-backed graph, the rows the
/// database holds with those values are read first, in a query per kind of scan (`RowScan`):
/// the call notes the scans it runs, they are read between runs, and the run after finds every
/// match the whole graph would, among the objects the graph holds. A scan whose values the
/// database cannot compare as memory does (decimals, JSON, text memory matches by canonical
/// equivalence) still needs every row.
extension ObjectStore {
    /// The live objects of `scan.kinds`, kind by kind, each kind's in creation order, whose
    /// attributes hold one of each test's values — compared as `holds` does (`bytewise`: text by
    /// its bytes), or as values are equal (text by canonical equivalence) — and that `accept`
    /// keeps; with `first`, only the first of them.
    func matching(_ scan: RowScan, bytewise: Bool, model: Model, first: Bool = false,
                  accept: (ObjectID) -> Bool = { _ in true }) -> [ObjectID] {
        noteScan(scan, bytewise: bytewise, model: model)
        var found: [ObjectID] = []
        for kind in scan.kinds where model.entities.indices.contains(kind) {
            let attributes = model.entities[kind].attributes
            var matched: [ObjectID] = []
            for object in membersHeld(kind) where contains(object) {
                let holdsAll = scan.tests.allSatisfy { test in
                    attributes.indices.contains(test.attribute) && (bytewise
                        ? test.values.contains { holds($0, of: object, test.attribute) }
                        : test.values.contains(attributeValue(of: object, test.attribute)))
                }
                guard holdsAll, accept(object) else { continue }
                matched.append(object)
                // Member lists of a whole graph are in creation order.
                if first && !isPartial { return matched }
            }
            // Rows come into part of a graph in the order they are asked for.
            if isPartial { matched.sort { sequence(of: $0) < sequence(of: $1) } }
            if first, let earliest = matched.first { return [earliest] }
            found += matched
        }
        return found
    }

    /// On part of a store-backed graph, inside a call's run: notes `scan` for reading, unless its
    /// rows were read already; one the database cannot run needs every row.
    private func noteScan(_ scan: RowScan, bytewise: Bool, model: Model) {
        guard isPartial, let log = session.faultLog, !log.scansRead.contains(scan), !log.scans.contains(scan) else { return }
        guard scan.runsInDatabase(bytewise: bytewise, model: model) else {
            log.needsAll = true
            return
        }
        log.scans.insert(scan)
    }

    /// Reads the rows the scans noted by a run need (their keys through the database, then their
    /// rows), scans of one entity, kinds and attributes together: one query per such group (or a
    /// few, for many values), never one per scan.
    mutating func read(_ scans: Set<RowScan>, model: Model) throws(MappingError) {
        guard let source = session.rowSource else { return }
        var groups: [RowScan.Group: [RowScan]] = [:]
        for scan in scans { groups[scan.group, default: []].append(scan) }
        for (group, members) in groups.sorted(by: { $0.key < $1.key }) {
            guard model.entities.indices.contains(group.entity), group.kinds.allSatisfy(model.entities.indices.contains) else { continue }
            let entity = model.entities[group.entity]
            let kinds = group.kinds.map { model.entities[$0] }
            for filter in group.filters(members) {
                let keys = try source.keys(of: entity, kinds: kinds, where: filter, order: [], offset: 0, limit: nil)
                try materialize(try objects(forKeys: keys, entity, source), model: model)
            }
        }
    }
}

/// What one scan looks for: the objects of `kinds` (entities sharing `entity`'s table) whose
/// attribute of each test holds one of its values (nil: null).
package struct RowScan: Hashable {
    let entity: Int
    let kinds: [Int]
    let tests: [Test]

    struct Test: Hashable {
        let attribute: Int
        let values: [AttributeValue?]
    }

    /// Whether the database compares every value as memory does (`bytewise`: text as `holds`
    /// compares it, by its bytes; else as values are equal, by canonical equivalence, which a
    /// byte comparison matches only for text `bytesNarrow` keeps): not decimals (stored as text)
    /// or JSON. A scan without tests (which no mapping makes) reads every row.
    func runsInDatabase(bytewise: Bool, model: Model) -> Bool {
        guard model.entities.indices.contains(entity), !tests.isEmpty else { return false }
        let attributes = model.entities[entity].attributes
        return tests.allSatisfy { test in
            attributes.indices.contains(test.attribute) && test.values.allSatisfy { value in
                switch value {
                case nil, .integer?, .double?, .boolean?, .date?: true
                case .string(let text)?: bytewise || CompiledComparison.bytesNarrow(text)
                case .decimal?, .json?: false
                }
            }
        }
    }

    var group: Group { Group(entity: entity, kinds: kinds, attributes: tests.map(\.attribute)) }

    /// Scans one query answers together: the same entity, kinds and attributes.
    struct Group: Hashable, Comparable {
        let entity: Int
        let kinds: [Int]
        let attributes: [Int]

        static func < (a: Group, b: Group) -> Bool {
            ([a.entity] + a.kinds + [-1] + a.attributes).lexicographicallyPrecedes([b.entity] + b.kinds + [-1] + b.attributes)
        }

        /// Values per query: an IN list of a few hundred parameters is well within what both
        /// databases take.
        static let valuesPerQuery = 500

        /// The filters that read the rows of `scans`: per attribute, every value any of them
        /// tests (a superset of each scan's rows: memory scans the objects read again), the
        /// attribute with the most values split across queries of `valuesPerQuery`.
        func filters(_ scans: [RowScan]) -> [RowFilter] {
            var values = Array(repeating: [AttributeValue](), count: attributes.count)
            var seen = Array(repeating: Set<AttributeValue>(), count: attributes.count)
            var null = Array(repeating: false, count: attributes.count)
            for scan in scans where scan.tests.count == attributes.count {
                for (index, test) in scan.tests.enumerated() {
                    for value in test.values {
                        guard let value else { null[index] = true; continue }
                        if seen[index].insert(value).inserted { values[index].append(value) }
                    }
                }
            }
            guard let widest = values.indices.max(by: { values[$0].count < values[$1].count }) else { return [] }
            func test(_ index: Int, _ kept: ArraySlice<AttributeValue>, null: Bool) -> RowFilter {
                var either: [RowFilter] = kept.isEmpty ? [] : [.compare(attribute: attributes[index], op: .in, values: Array(kept))]
                if null { either.append(.compare(attribute: attributes[index], op: .equal, values: [])) }
                return either.count == 1 ? either[0] : either.isEmpty ? .constant(false) : .or(either)
            }
            var queries: [RowFilter] = []
            var start = 0
            repeat {
                let end = min(start + Self.valuesPerQuery, values[widest].count)
                queries.append(.and(values.indices.map { index in
                    index == widest ? test(index, values[index][start..<end], null: null[index] && start == 0)
                        : test(index, values[index][...], null: null[index])
                }))
                start = end
            } while start < values[widest].count
            return queries
        }
    }
}
