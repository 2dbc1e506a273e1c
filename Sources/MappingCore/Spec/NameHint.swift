/// What an error about an unknown name adds so the reader can fix it: the closest known name, when
/// one is close enough to be a likely typo, and the names that are known.
///
///     unknown entity "Persn": did you mean "Person"? (known: Company, Person, Phone)
public enum NameHint {
    /// At most this many known names are listed.
    static let listed = 12
    /// Names longer than this are not compared (the distance is quadratic in the lengths).
    static let comparedLength = 64

    /// `": did you mean …? (known: …)"`, `" (known: …)"`, or `" (none are declared)"`.
    public static func hint(for name: String, among known: [String], kind: String = "known") -> String {
        guard !known.isEmpty else { return " (none are declared)" }
        let sorted = known.sorted()
        var list = sorted.prefix(listed).joined(separator: ", ")
        if sorted.count > listed { list += ", … (\(sorted.count) in all)" }
        guard let closest = closest(to: name, among: sorted) else { return " (\(kind): \(list))" }
        return ": did you mean \"\(closest)\"? (\(kind): \(list))"
    }

    /// The known name nearest `name`: one that differs only in case, else the one with the fewest
    /// edits (insertions, deletions, substitutions, swaps of neighbours) if that is at most a third
    /// of the name's length (and at least one).
    static func closest(to name: String, among known: [String]) -> String? {
        let lowered = name.lowercased()
        if let sameLetters = known.first(where: { $0.lowercased() == lowered }) { return sameLetters }
        let target = Array(lowered.unicodeScalars)
        guard !target.isEmpty, target.count <= comparedLength else { return nil }
        let allowed = max(1, target.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in known {
            let scalars = Array(candidate.lowercased().unicodeScalars)
            guard scalars.count <= comparedLength, abs(scalars.count - target.count) <= allowed else { continue }
            let distance = editDistance(target, scalars)
            if distance <= allowed, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Optimal string alignment distance (Levenshtein plus swaps of neighbouring characters).
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, before[j - 2] + 1) }
                current[j] = value
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}

extension Model {
    /// The error for an entity name the model lacks (MAPPING_ENAME, or `code` in a spec), with hints.
    public func unknownEntity(_ name: String, code: MappingError.Code = .name, path: String = "") -> MappingError {
        MappingError(code, "unknown entity \"\(name)\"" + NameHint.hint(for: name, among: entities.map(\.name), kind: "entities"),
                     path: path)
    }
}

extension Entity {
    /// The error for an attribute name the entity lacks, with hints; `attribute` is `Entity.name`.
    public func unknownAttribute(_ name: String, code: MappingError.Code = .name, path: String = "") -> MappingError {
        MappingError(code, "entity \"\(self.name)\" has no attribute \"\(name)\""
                         + NameHint.hint(for: name, among: attributes.map(\.name), kind: "attributes"),
                     path: path, attribute: code == .name ? self.name + "." + name : "")
    }

    /// The error for a relationship name the entity lacks, with hints.
    public func unknownRelationship(_ name: String, code: MappingError.Code = .name, path: String = "") -> MappingError {
        MappingError(code, "entity \"\(self.name)\" has no relationship \"\(name)\""
                         + NameHint.hint(for: name, among: relationships.map(\.name), kind: "relationships"),
                     path: path, attribute: code == .name ? self.name + "." + name : "")
    }
}
