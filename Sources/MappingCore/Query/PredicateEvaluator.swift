/// What a predicate is evaluated on: an object of the store, or a JSON representation.
enum PredicateSubject {
    case object(ObjectID)
    case representation(JSONValue)
}

/// Evaluates a compiled predicate on objects of the store (or on representations).
struct PredicateEvaluator {
    let store: ObjectStore?

    init(store: ObjectStore?) { self.store = store }

    func matches(_ object: ObjectID, _ predicate: CompiledPredicate) -> Bool {
        evaluate(predicate.root, .object(object))
    }

    func matches(representation: JSONValue, _ predicate: CompiledPredicate) -> Bool {
        evaluate(predicate.root, .representation(representation))
    }

    private func evaluate(_ node: CompiledPredicate.Node, _ object: PredicateSubject) -> Bool {
        switch node {
        case .constant(let value): return value
        case .not(let inner): return !evaluate(inner, object)
        case .and(let parts): return parts.allSatisfy { evaluate($0, object) }
        case .or(let parts): return parts.contains { evaluate($0, object) }
        case .comparison(let comparison): return evaluate(comparison, object)
        }
    }

    private func value(_ expression: CompiledExpression, _ subject: PredicateSubject) -> PredicateValue {
        switch (expression, subject) {
        case (.path(let path), .object(let object)):
            // Borrowed through `map`: `guard let` copied the whole store out of the optional (a
            // retain and release of each of its arrays) for every value a predicate read.
            return store.map { path.value(from: object, store: $0) } ?? .null
        case (.member(let names, let count), .representation(let json)):
            var current: JSONValue? = json
            for name in names { current = current?[name] }
            let found = current.map { PredicateValue(json: $0) } ?? .null
            if count { return .integer(Int64(found.elements?.count ?? 0)) }
            return found
        case (.value(let value), _): return value
        case (.list(let elements), _): return .many(elements.map { value($0, subject) })
        case (.this, .object(let object)): return .object(object)
        case (.this, .representation(let json)): return PredicateValue(json: json)
        default: return .null
        }
    }

    private func evaluate(_ comparison: CompiledComparison, _ object: PredicateSubject) -> Bool {
        let left = value(comparison.left, object)
        let right = value(comparison.right, object)
        // Collections on the left: ANY/ALL/NONE over their elements. Without an aggregate, a
        // comparison that is not about the collection itself (CONTAINS, @count) reads as ANY.
        if let elements = left.elements, comparison.aggregate != nil || comparison.op != .contains {
            switch comparison.aggregate ?? .any {
            case .any: return elements.contains { compare($0, right, comparison) }
            case .all: return elements.allSatisfy { compare($0, right, comparison) }
            case .noneOf: return !elements.contains { compare($0, right, comparison) }
            }
        }
        return compare(left, right, comparison)
    }

    private func compare(_ left: PredicateValue, _ right: PredicateValue, _ comparison: CompiledComparison) -> Bool {
        let fold = comparison.fold
        switch comparison.op {
        case .equal: return PredicateValue.equal(left, right, fold: fold)
        case .notEqual: return !PredicateValue.equal(left, right, fold: fold)
        case .less: return PredicateValue.order(left, right, fold: fold).map { $0 < 0 } ?? false
        case .lessOrEqual: return PredicateValue.order(left, right, fold: fold).map { $0 <= 0 } ?? false
        case .greater: return PredicateValue.order(left, right, fold: fold).map { $0 > 0 } ?? false
        case .greaterOrEqual: return PredicateValue.order(left, right, fold: fold).map { $0 >= 0 } ?? false
        case .between:
            guard let bounds = right.elements, bounds.count == 2,
                  let low = PredicateValue.order(left, bounds[0], fold: fold),
                  let high = PredicateValue.order(left, bounds[1], fold: fold) else { return false }
            return low >= 0 && high <= 0
        case .in:
            if let elements = right.elements { return elements.contains { PredicateValue.equal(left, $0, fold: fold) } }
            if case .string(let haystack) = right, case .string(let needle) = left {
                return fold.apply(haystack).contains(fold.apply(needle))
            }
            return PredicateValue.equal(left, right, fold: fold)
        case .contains:
            if let elements = left.elements { return elements.contains { PredicateValue.equal($0, right, fold: fold) } }
            guard case .string(let haystack) = left, case .string(let needle) = right else { return false }
            return fold.apply(haystack).contains(fold.apply(needle))
        case .beginsWith, .endsWith:
            guard case .string(let text) = left, case .string(let affix) = right else { return false }
            let (folded, foldedAffix) = (fold.apply(text), fold.apply(affix))
            return comparison.op == .beginsWith ? folded.hasPrefix(foldedAffix) : folded.hasSuffix(foldedAffix)
        case .like:
            guard case .string(let text) = left, case .string(let pattern) = right else { return false }
            return Self.like(Array(fold.apply(text)), Array(fold.apply(pattern)))
        case .matches:
            guard case .string(let text) = left, let regex = comparison.regex else { return false }
            let subject = comparison.fold.diacriticInsensitive ? TextFold(caseInsensitive: false, diacriticInsensitive: true).apply(text) : text
            return regex.regex.wholeMatch(subject)
        }
    }

    /// LIKE: `*` matches any run of characters, `?` one character, `\\` escapes either. Iterative
    /// (the last `*` is where matching resumes), so long strings cannot exhaust the stack.
    static func like(_ text: [Character], _ pattern: [Character]) -> Bool {
        var t = 0, p = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "*" {
                star = p
                p += 1
                resume = t
            } else if p < pattern.count, pattern[p] == "\\", p + 1 < pattern.count, text[t] == pattern[p + 1] {
                p += 2
                t += 1
            } else if p < pattern.count, pattern[p] != "\\", pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let starAt = star {
                p = starAt + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
