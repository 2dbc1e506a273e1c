/// Which schemas describe one resource, so that they become one entity and a resource read through
/// two endpoints is one object. Two schemas are evidence of one resource when they identify objects
/// by the same property and the document says so: their names name the same resource once
/// `simple`, `full`, `public` and the like are set aside (`simple-user`, `public-user`), their `url`
/// examples are instances of the same path, or nearly every property of the smaller (at least five,
/// all but a fifth, three of them rare in the document) is one of the larger's (`actor` in
/// `simple-user`). Groups join, strongest evidence first, when at least half of the pairs across
/// them are such evidence — so one schema that resembles two resources does not chain them — and
/// their properties agree on type. `--merge` joins what the user names.
struct OpenAPIMerge {
    typealias Schemas = OpenAPISchemas

    /// The group of each schema, by schema index: the index of the group's first schema.
    private(set) var group: [Int]
    /// Why each merge was made, for the report.
    private(set) var reasons: [String: String] = [:]
    private(set) var refusals: [String] = []

    init(_ schemas: Schemas, automatic: Bool, byHand: [[String]]) {
        let all = schemas.schemas
        group = Array(all.indices)
        var kinds: [[String: Schemas.Kind]] = all.map { schema in
            Dictionary(schema.properties.map { ($0.key, schemas.kind($0.schema, owner: schema.name, key: $0.key)) },
                       uniquingKeysWith: { first, _ in first })
        }
        for names in byHand {
            let indices = names.compactMap { schemas.index[$0] }
            for name in names where schemas.index[name] == nil { refusals.append("--merge names \(name), which is not an object schema") }
            for other in indices.dropFirst() {
                merge(indices[0], other, schemas, &kinds, reason: "--merge", force: true)
            }
        }
        guard automatic else { return }
        var frequency: [String: Int] = [:]
        for schema in all { for (key, _) in schema.properties { frequency[key, default: 0] += 1 } }
        let rare = Set(frequency.filter { $0.value * 100 <= all.count * 15 }.keys)
        var evidence: [(strength: Int, a: Int, b: Int, reason: String)] = []
        var related: Set<Int> = []
        for first in all.indices {
            for second in all.indices where second > first {
                guard let identification = all[first].identification, identification == all[second].identification,
                      let (strength, reason) = Self.evidence(all[first], all[second], rare: rare) else { continue }
                evidence.append((strength, first, second, reason))
                related.insert(first * all.count + second)
            }
        }
        var members: [Int: [Int]] = Dictionary(uniqueKeysWithValues: all.indices.map { ($0, [$0]) })
        var urls: [Int: Set<String>] = Dictionary(uniqueKeysWithValues: all.indices.map { ($0, Set([all[$0].urlTemplate].compactMap { $0 })) })
        for (_, a, b, reason) in evidence.sorted(by: { ($0.strength, -$0.a, -$0.b) > ($1.strength, -$1.a, -$1.b) }) {
            let (ra, rb) = (root(a), root(b))
            guard ra != rb, let left = members[ra], let right = members[rb] else { continue }
            // A group's URLs are its resource's: groups whose URLs are all different paths stay apart.
            if let leftURLs = urls[ra], let rightURLs = urls[rb], !leftURLs.isEmpty, !rightURLs.isEmpty,
               leftURLs.isDisjoint(with: rightURLs) { continue }
            var linked = 0
            for x in left { for y in right where related.contains(min(x, y) * all.count + max(x, y)) { linked += 1 } }
            guard linked * 2 >= left.count * right.count else { continue }
            if merge(a, b, schemas, &kinds, reason: reason, force: false) {
                members[ra] = left + right
                members[rb] = nil
                urls[ra, default: []].formUnion(urls[rb] ?? [])
            }
        }
    }

    /// How strongly the document says `a` and `b` are one resource (names 3, urls 2, properties 1),
    /// and why; nil when it does not.
    static func evidence(_ a: Schemas.Schema, _ b: Schemas.Schema, rare: Set<String>) -> (Int, String)? {
        // URLs of different paths are different resources, whatever else the schemas share
        // (`/gists/{gist_id}/comments/{comment_id}` and `/repos/…/comments/{comment_id}`).
        if let first = a.urlTemplate, let second = b.urlTemplate, first != second { return nil }
        if a.stem == b.stem { return (3, "both name \(a.stem)") }
        if let url = a.urlTemplate, url == b.urlTemplate { return (2, "both have the url \(url)") }
        // Names that share a word but differ name kinds of one thing (`commit-comment`,
        // `issue-comment`) or a part of one (`team-discussion-comment`): not the same resource.
        let (aWords, bWords) = (Set(OpenAPINames.words(a.stem)), Set(OpenAPINames.words(b.stem)))
        if !a.isInline, !b.isInline, !aWords.isDisjoint(with: bWords) { return nil }
        let (small, large) = a.properties.count <= b.properties.count ? (a, b) : (b, a)
        guard small.properties.count >= 5 else { return nil }
        let largeKeys = Set(large.properties.map(\.key))
        let shared = small.properties.filter { largeKeys.contains($0.key) }
        let missing = small.properties.count - shared.count
        guard missing * 5 <= small.properties.count, shared.filter({ rare.contains($0.key) }).count >= 3 else { return nil }
        return (1, "\(shared.count) of \(small.name)'s \(small.properties.count) properties are \(large.name)'s")
    }

    func root(_ index: Int) -> Int {
        var index = index
        while group[index] != index { index = group[index] }
        return index
    }

    /// Joins the groups of `a` and `b` when every property they share has one kind.
    @discardableResult
    private mutating func merge(_ a: Int, _ b: Int, _ schemas: Schemas, _ kinds: inout [[String: Schemas.Kind]],
                                reason: String, force: Bool) -> Bool {
        let (ra, rb) = (root(a), root(b))
        guard ra != rb else { return false }
        let (first, second) = (schemas.schemas[a], schemas.schemas[b])
        if first.identification != second.identification {
            refusals.append("\(first.name) and \(second.name) were not merged: one is identified by "
                            + "\(first.identification ?? "nothing"), the other by \(second.identification ?? "nothing")")
            return false
        }
        for (key, kind) in kinds[rb] {
            guard let other = kinds[ra][key] else { continue }
            if !Self.compatible(kind, other) {
                if force { refusals.append("\(first.name) and \(second.name) were not merged: their \(key) differ") }
                return false
            }
        }
        kinds[ra].merge(kinds[rb]) { old, new in Self.isLoose(old) ? new : old }
        group[rb] = ra
        reasons[second.name] = reason
        return true
    }

    /// Attributes of one type; relationships of one cardinality (their targets are merged in turn);
    /// a property one schema keeps as json or leaves out goes with anything (the entity takes the
    /// other's kind, and that schema's mapping leaves the property out).
    static func compatible(_ a: Schemas.Kind, _ b: Schemas.Kind) -> Bool {
        switch (a, b) {
        case (.attribute(let x), .attribute(let y)): return x == y
        case (.relationship(_, let x, _), .relationship(_, let y, _)): return x == y
        default: return isLoose(a) || isLoose(b)
        }
    }

    static func isLoose(_ kind: Schemas.Kind) -> Bool {
        switch kind {
        case .json, .leftOut, .attribute("json"): return true
        default: return false
        }
    }
}
