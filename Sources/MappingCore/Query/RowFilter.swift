/// A predicate (or the part of one) a database can test on an entity's own rows, in terms a store
/// turns into SQL: comparisons of one attribute with values, under AND, OR and NOT. A graph that
/// reads its store's rows as they are touched fetches through it (`ObjectStore+RowFetch`).
public indirect enum RowFilter: Sendable {
    case constant(Bool)
    /// The attribute (an index into the fetched entity's attributes) compared with `values` as the
    /// in-memory evaluator compares: `equal`/`notEqual` with no value test null (`IS NULL`).
    case compare(attribute: Int, op: Op, values: [AttributeValue])
    /// A string attribute whose bytes begin with, end with, or contain these (ASCII) bytes; null
    /// fails.
    case prefix(attribute: Int, String)
    case suffix(attribute: Int, String)
    case containing(attribute: Int, String)
    case and([RowFilter])
    case or([RowFilter])
    case not(RowFilter)
    /// The rows whose to-one `relationship` (an index into the filtered entity's relationships)
    /// leads to a row the inner filter keeps (its attributes are the destination's); and, when
    /// `whenNone`, the rows whose relationship leads nowhere (none, or a row that is gone), which
    /// a key path through it reads as null.
    case through(relationship: Int, RowFilter, whenNone: Bool)
    /// The number of live targets of a to-many `relationship` compared with integers (never null).
    case count(relationship: Int, op: Op, values: [AttributeValue])
    /// The rows with a live target of the to-many `relationship` that the inner filter keeps (its
    /// attributes are the destination's): ANY; with NOT around it, NONE, and around a negated
    /// inner filter, ALL.
    case any(relationship: Int, RowFilter)
    /// The rows with one of these keys (as `RowSource` gives them; keys of other tables keep
    /// nothing here).
    case rowIn(keys: [Int64])

    public enum Op: Sendable {
        /// A null attribute equals nothing but null (`!=` holds for it).
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual, `in`, between
    }
}

extension RowFilter {
    /// The rows whose test by this filter reads, as the database holds them, one of the rows
    /// `keys` (besides their own): through a to-one that leads to one, or to a row that does;
    /// with a to-many target that is one, or that does. Inside a transaction these are the rows
    /// the database may judge otherwise than memory, whose `keys` rows have changed (a row of
    /// theirs the database lacks a change to: memory, not the database, must test them).
    func reaching(_ keys: [Int64]) -> RowFilter {
        guard !keys.isEmpty else { return .constant(false) }
        switch self {
        case .constant, .compare, .prefix, .suffix, .containing, .rowIn:
            return .constant(false)
        case .and(let parts), .or(let parts):
            return .or(parts.map { $0.reaching(keys) })
        case .not(let inner):
            return inner.reaching(keys)
        case .through(let relationship, let inner, _):
            return .through(relationship: relationship, .or([.rowIn(keys: keys), inner.reaching(keys)]), whenNone: false)
        case .count(let relationship, _, _):
            return .any(relationship: relationship, .rowIn(keys: keys))
        case .any(let relationship, let inner):
            return .any(relationship: relationship, .or([.rowIn(keys: keys), inner.reaching(keys)]))
        }
    }
}

/// One key of a sort the database can run: an attribute of the fetched entity, or of the object
/// a chain of to-one relationships (`hops`, indexes from the fetched entity on) leads to, and
/// whether it descends. Nulls — and a chain that leads nowhere — sort first ascending and last
/// descending, and ties keep key (creation) order, in SQLite as in memory.
public struct RowOrder: Sendable {
    public let hops: [Int]
    /// An index into the attributes of the entity the hops lead to.
    public let attribute: Int
    public let descending: Bool

    /// The sort `keys` as the database can run it, or nil: only keys that are one attribute of the
    /// entity or of a to-one's destination, of a type the database orders as the evaluator does
    /// (strings by bytes, integers, doubles, booleans, dates; not decimals or JSON), with no
    /// `@count`.
    static func translate(_ keys: [(ResolvedKeyPath, Bool)], entity: Entity, model: Model) -> [RowOrder]? {
        var orders: [RowOrder] = []
        for (path, descending) in keys {
            guard !path.count, let (current, hops, steps) = path.toOneHops(from: entity, model: model),
                  steps.count == 1, case .attribute(let attribute)? = steps.first,
                  current.attributes.indices.contains(attribute) else { return nil }
            switch current.attributes[attribute].type {
            case .string, .integer, .double, .boolean, .date:
                orders.append(RowOrder(hops: hops, attribute: attribute, descending: descending))
            case .decimal, .json: return nil
            }
        }
        return orders
    }
}

extension CompiledPredicate.Node {
    /// A filter the database can run that keeps every object this predicate matches, and whether it
    /// keeps exactly those (`exact`); nil when no part of it can be tested on rows. Only what the
    /// SQL stores compare as the evaluator does is translated: one attribute of the entity itself
    /// (no key path through a relationship, no aggregate, no `[c]`/`[d]`), against literals of its
    /// own type — strings (byte order, as SQLite's BINARY collation), integers, doubles, booleans
    /// and dates (exact microseconds); never decimals (stored as text) or JSON.
    func rowFilter(_ entity: Entity, model: Model) -> (filter: RowFilter, exact: Bool)? {
        switch self {
        case .constant(let value):
            return (.constant(value), true)
        case .and(let parts):
            // Parts that cannot be tested are left to the evaluator: what remains keeps a superset.
            let translated = parts.map { $0.rowFilter(entity, model: model) }
            let kept = translated.compactMap { $0 }
            guard !kept.isEmpty else { return nil }
            return (.and(kept.map(\.filter)), kept.count == parts.count && kept.allSatisfy(\.exact))
        case .or(let parts):
            var kept: [RowFilter] = []
            var exact = true
            for part in parts {
                guard let translated = part.rowFilter(entity, model: model) else { return nil }
                kept.append(translated.filter)
                exact = exact && translated.exact
            }
            return (.or(kept), exact)
        case .not(let inner):
            // NOT of a superset is not a superset: only an exact inner filter negates.
            guard let translated = inner.rowFilter(entity, model: model), translated.exact else { return nil }
            return (.not(translated.filter), true)
        case .comparison(let comparison):
            return comparison.rowFilter(entity, model: model)
        }
    }
}

extension CompiledComparison {
    /// A comparison of a key path through to-one relationships (none or several) to an attribute,
    /// or to the last relationship's object with `== nil` / `!= nil`: the attribute's test runs on
    /// the destination's table, and each hop keeps the rows linked to rows it keeps (`through`).
    /// A hop that leads nowhere makes the path null, which the comparison's own null rule decides.
    fileprivate func rowFilter(_ entity: Entity, model: Model) -> (filter: RowFilter, exact: Bool)? {
        guard regex == nil, !fold.caseInsensitive, !fold.diacriticInsensitive,
              case .path(let path) = left, case .value(let right) = right else { return nil }
        if !path.count, case .relationship(let index)? = path.steps.first, entity.relationships.indices.contains(index),
           entity.relationships[index].toMany {
            return collectionFilter(entity, index, path, right, model: model)
        }
        guard aggregate == nil else { return nil }
        if path.count {
            // `tags.@count > 2`: the entity's own to-many, counted by the database.
            guard path.steps.count == 1, case .relationship(let index)? = path.steps.first,
                  entity.relationships.indices.contains(index), entity.relationships[index].toMany,
                  let (op, values) = integerTest(right) else { return nil }
            return (.count(relationship: index, op: op, values: values), true)
        }
        guard let (current, hops, steps) = path.toOneHops(from: entity, model: model) else { return nil }
        let inner: (filter: RowFilter, exact: Bool)
        switch steps.first {
        case nil:
            // `rel == nil` / `rel != nil`: whether the path leads to an object.
            guard !hops.isEmpty, case .null = right, op == .equal || op == .notEqual else { return nil }
            var leads = RowFilter.constant(true)
            for hop in hops.reversed() { leads = .through(relationship: hop, leads, whenNone: false) }
            return (op == .notEqual ? leads : .not(leads), true)
        case .attribute(let attribute)?:
            guard steps.count == 1, let found = attributeFilter(current, attribute, right) else { return nil }
            inner = found
        case .relationship?:
            return nil
        }
        var filter = inner.filter
        let whenNone = nullMatches(right)
        for hop in hops.reversed() { filter = .through(relationship: hop, filter, whenNone: whenNone) }
        return (filter, inner.exact)
    }

    /// Whether this comparison holds for a null left side (a key path that led nowhere), as the
    /// evaluator decides it for the operators translated: `== nil` and `!= value` hold, the rest
    /// fail.
    private func nullMatches(_ right: PredicateValue) -> Bool {
        let rightIsNull: Bool
        if case .null = right { rightIsNull = true } else { rightIsNull = false }
        switch op {
        case .equal: return rightIsNull
        case .notEqual: return !rightIsNull
        default: return false
        }
    }

    /// `ANY tags.label == 'x'` (also without ANY: memory reads a to-many's values as ANY), `ALL …`,
    /// `NONE …`: the entity's own to-many to an attribute of its targets. ALL and NONE negate, so
    /// they need an exact inner filter.
    private func collectionFilter(_ entity: Entity, _ relationship: Int, _ path: ResolvedKeyPath, _ right: PredicateValue,
                                  model: Model) -> (filter: RowFilter, exact: Bool)? {
        let destination = entity.relationships[relationship].destination
        guard op != .contains, path.steps.count == 2, case .attribute(let attribute) = path.steps[1],
              model.entities.indices.contains(destination),
              let inner = attributeFilter(model.entities[destination], attribute, right) else { return nil }
        switch aggregate ?? .any {
        case .any:
            return (.any(relationship: relationship, inner.filter), inner.exact)
        case .noneOf:
            guard inner.exact else { return nil }
            return (.not(.any(relationship: relationship, inner.filter)), true)
        case .all:
            guard inner.exact else { return nil }
            return (.not(.any(relationship: relationship, .not(inner.filter))), true)
        }
    }

    /// This comparison's operator and integer literals, for a count (which is never null).
    private func integerTest(_ right: PredicateValue) -> (RowFilter.Op, [AttributeValue])? {
        guard let op = RowFilter.Op(op) else { return nil }
        let literals = op == .in || op == .between ? right.elements : [right]
        guard let literals, !literals.isEmpty, op != .between || literals.count == 2 else { return nil }
        var values: [AttributeValue] = []
        for literal in literals {
            guard case .integer(let number) = literal else { return nil }
            values.append(.integer(number))
        }
        return (op, values)
    }

    /// The comparison of `entity`'s own `attribute` with `right`, as the database can run it.
    private func attributeFilter(_ entity: Entity, _ attribute: Int, _ right: PredicateValue) -> (filter: RowFilter, exact: Bool)? {
        guard entity.attributes.indices.contains(attribute) else { return nil }
        let type = entity.attributes[attribute].type
        switch self.op {
        case .beginsWith, .endsWith, .contains:
            // Memory compares Characters (canonical equivalence, grapheme clusters), a database
            // bytes: the database narrows, memory finishes.
            guard type == .string, case .string(let affix) = right, Self.bytesNarrow(affix) else { return nil }
            switch self.op {
            case .beginsWith: return (.prefix(attribute: attribute, affix), false)
            case .endsWith: return (.suffix(attribute: attribute, affix), false)
            default: return (.containing(attribute: attribute, affix), false)
            }
        case .like:
            // The pattern's literal text before its first wildcard and after its last one: a
            // prefix and a suffix every match has (a `?` matches one Character, which may be
            // several bytes, so the middle is left to memory).
            guard type == .string, case .string(let pattern) = right else { return nil }
            let characters = Array(pattern)
            let wildcards = characters.indices.filter { ["*", "?", "\\"].contains(characters[$0]) }
            guard let first = wildcards.first, let last = wildcards.last else {
                // No wildcard: the text itself, as a prefix (equality compares bytes, LIKE Characters).
                return Self.bytesNarrow(pattern) ? (.prefix(attribute: attribute, pattern), false) : nil
            }
            var parts: [RowFilter] = []
            let head = String(characters[..<first]), tail = String(characters[(last + 1)...])
            if !head.isEmpty, Self.bytesNarrow(head) { parts.append(.prefix(attribute: attribute, head)) }
            if !tail.isEmpty, Self.bytesNarrow(tail) { parts.append(.suffix(attribute: attribute, tail)) }
            return parts.isEmpty ? nil : (.and(parts), false)
        default:
            break
        }
        guard let op = RowFilter.Op(self.op) else { return nil }
        if case .null = right, op == .equal || op == .notEqual {
            return (.compare(attribute: attribute, op: op, values: []), true)
        }
        let literals = op == .in || op == .between ? right.elements : [right]
        guard let literals, !literals.isEmpty, op != .between || literals.count == 2 else { return nil }
        var values: [AttributeValue] = []
        for literal in literals {
            guard let value = literal.rowValue(as: type) else { return nil }
            values.append(value)
        }
        return (.compare(attribute: attribute, op: op, values: values), true)
    }
}

extension CompiledComparison {
    /// Whether a database comparing the bytes of `affix` keeps every string memory matches with it
    /// (as a prefix, suffix or part): true for ASCII text without `K`, `;` and `` ` ``. An ASCII
    /// character is a Character equal only to itself, but for those three: U+212A KELVIN SIGN,
    /// U+037E GREEK QUESTION MARK and U+1FEF GREEK VARIA decompose to them, so memory finds a `K`
    /// in "\u{212A}" where the bytes hold none.
    static func bytesNarrow(_ affix: String) -> Bool {
        affix.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "K") && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: "`") }
    }
}

extension ResolvedKeyPath {
    /// The to-one relationships at the head of the path, from `entity`: the entity they lead to,
    /// their indexes, and the steps after them; nil when one of them is a to-many.
    func toOneHops(from entity: Entity, model: Model) -> (entity: Entity, hops: [Int], rest: ArraySlice<Step>)? {
        var current = entity
        var hops: [Int] = []
        var steps = self.steps[...]
        while case .relationship(let index)? = steps.first {
            guard current.relationships.indices.contains(index), !current.relationships[index].toMany,
                  model.entities.indices.contains(current.relationships[index].destination) else { return nil }
            hops.append(index)
            current = model.entities[current.relationships[index].destination]
            steps = steps.dropFirst()
        }
        return (current, hops, steps)
    }
}

extension RowFilter.Op {
    /// The predicate operator as a row comparison; nil for one the database does not run as such.
    init?(_ op: Comparison.Operator) {
        switch op {
        case .equal: self = .equal
        case .notEqual: self = .notEqual
        case .less: self = .less
        case .lessOrEqual: self = .lessOrEqual
        case .greater: self = .greater
        case .greaterOrEqual: self = .greaterOrEqual
        case .in: self = .in
        case .between: self = .between
        default: return nil
        }
    }
}

extension PredicateValue {
    /// This literal as a value of an attribute of `type`, when the database compares the two
    /// exactly as the evaluator does (the literal is of the attribute's own kind; an integer for a
    /// double, within 2^53); nil otherwise.
    fileprivate func rowValue(as type: AttributeType) -> AttributeValue? {
        switch (type, self) {
        case (.string, .string(let text)): .string(text)
        case (.integer, .integer(let number)): .integer(number)
        case (.double, .double(let number)): .double(number)
        // Beyond 2^53 the evaluator compares an integer with a double exactly, which a double cannot.
        case (.double, .integer(let number)) where number.magnitude <= 1 << 53: .double(Double(number))
        case (.boolean, .bool(let flag)): .boolean(flag)
        case (.date, .date(let instant)): .date(instant)
        default: nil
        }
    }
}
