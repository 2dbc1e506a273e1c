/// A predicate resolved against one entity: key paths turned into attribute and relationship
/// indexes (unknown names are errors with their column), arguments bound, patterns compiled.
struct CompiledPredicate: Sendable {
    indirect enum Node: Sendable {
        case constant(Bool)
        case not(Node)
        case and([Node])
        case or([Node])
        case comparison(CompiledComparison)
    }

    let root: Node
}

struct CompiledComparison: Sendable {
    let aggregate: Comparison.Aggregate?
    let left: CompiledExpression
    let op: Comparison.Operator
    let right: CompiledExpression
    let fold: TextFold
    let regex: CompiledRegex?
}

/// A compiled MATCHES pattern: a linear-time matcher, so that no pattern can hold the context's lock
/// for long (a backtracking engine takes minutes on `(a+)+b` against a few dozen `a`s).
struct CompiledRegex: Sendable {
    let regex: LinearRegex
}

enum CompiledExpression: Sendable {
    case path(ResolvedKeyPath)
    /// A key path into a JSON representation (predicates of dynamic mappings).
    case member([String], count: Bool)
    case value(PredicateValue)
    case list([CompiledExpression])
    case this
}

/// A key path through an entity's relationships, ending at an attribute or a relationship.
struct ResolvedKeyPath: Sendable {
    enum Step: Sendable {
        case attribute(Int)
        case relationship(Int)
    }

    let steps: [Step]
    let count: Bool

    /// Resolves `names` from `entity`, or fails naming the first unknown one.
    static func resolve(_ names: [String], count: Bool, from entity: Entity, model: Model,
                        column: Int) throws(MappingError) -> ResolvedKeyPath {
        var current = entity
        var steps: [Step] = []
        for (position, name) in names.enumerated() {
            if let attribute = current.attributeIndex(named: name) {
                guard position == names.count - 1 else {
                    throw MappingError(.predicate, "\"\(name)\" is an attribute of \(current.name): nothing can follow it (column \(column))",
                                       column: column)
                }
                steps.append(.attribute(attribute))
            } else if let relationship = current.relationshipIndex(named: name) {
                steps.append(.relationship(relationship))
                let destination = current.relationships[relationship].destination
                guard model.entities.indices.contains(destination) else { break }
                current = model.entities[destination]
            } else {
                throw MappingError(.predicate, "entity \"\(current.name)\" has no attribute or relationship \"\(name)\" (column \(column))"
                                   + NameHint.hint(for: name, among: current.attributes.map(\.name) + current.relationships.map(\.name),
                                                   kind: "attributes and relationships"),
                                   column: column)
            }
        }
        return ResolvedKeyPath(steps: steps, count: count)
    }

    /// The value at this path from `object`: an attribute's value, an object, or a collection when
    /// the path goes through a to-many relationship (`@count` counts it).
    func value(from object: ObjectID, store: ObjectStore) -> PredicateValue {
        var current: [ObjectID] = [object]
        var isCollection = false
        for step in steps {
            switch step {
            case .attribute(let index):
                let values = current.map { id -> PredicateValue in
                    PredicateValue(store.attributeValue(of: id, index))
                }
                if count { return .integer(Int64(values.count)) }
                return isCollection ? .many(values) : (values.first ?? .null)
            case .relationship(let index):
                var next: [ObjectID] = []
                for id in current {
                    guard let links = store.links(of: id, index) else { continue }
                    if case .many = links { isCollection = true }
                    next += links.targets.filter(store.contains)
                }
                current = next
            }
        }
        if count { return .integer(Int64(current.count)) }
        if isCollection { return .many(current.map(PredicateValue.object)) }
        return current.first.map(PredicateValue.object) ?? .null
    }
}

extension CompiledPredicate {
    /// Parses, resolves against `entity` and binds `arguments` (one JSON value per `%@`).
    static func compile(_ text: String, entity: Entity, model: Model,
                        arguments: [JSONValue]) throws(MappingError) -> CompiledPredicate {
        do throws(MappingError) {
            let (predicate, count) = try PredicateParser.parse(text)
            guard count == arguments.count else {
                throw MappingError(.predicate, "the predicate has \(count) %@ argument(s), \(arguments.count) given")
            }
            var compiler = Compiler(entity: entity, model: model, arguments: arguments)
            return CompiledPredicate(root: try compiler.node(predicate))
        } catch {
            throw error.pointing(into: text)
        }
    }

    /// Parses a predicate that is evaluated on JSON representations rather than on objects: key
    /// paths name members of the representation (RestKit's predicate matchers of dynamic mappings).
    static func compileForRepresentations(_ text: String) throws(MappingError) -> CompiledPredicate {
        do throws(MappingError) {
            let (predicate, count) = try PredicateParser.parse(text)
            guard count == 0 else { throw MappingError(.predicate, "a representation predicate takes no %@ arguments") }
            var compiler = Compiler(entity: nil, model: nil, arguments: [])
            return CompiledPredicate(root: try compiler.node(predicate))
        } catch {
            throw error.pointing(into: text)
        }
    }

    private struct Compiler {
        /// `nil` for representation predicates, whose key paths are not resolved.
        let entity: Entity?
        let model: Model?
        let arguments: [JSONValue]

        mutating func node(_ predicate: Predicate) throws(MappingError) -> Node {
            switch predicate {
            case .constant(let value): return .constant(value)
            case .not(let inner): return .not(try node(inner))
            case .and(let parts):
                var nodes: [Node] = []
                for part in parts { nodes.append(try node(part)) }
                return .and(nodes)
            case .or(let parts):
                var nodes: [Node] = []
                for part in parts { nodes.append(try node(part)) }
                return .or(nodes)
            case .comparison(let comparison):
                return .comparison(try compile(comparison))
            }
        }

        private func compile(_ comparison: Comparison) throws(MappingError) -> CompiledComparison {
            let right = try expression(comparison.right)
            var regex: CompiledRegex?
            if comparison.op == .matches, case .value(.string(let pattern)) = right {
                do throws(RegexError) {
                    regex = CompiledRegex(regex: try LinearRegex(pattern, caseInsensitive: comparison.caseInsensitive))
                } catch {
                    throw MappingError(.predicate, "\"\(pattern)\" is not a regular expression: \(error.message) (column \(comparison.column))",
                                       column: comparison.column)
                }
            } else if comparison.op == .matches {
                throw MappingError(.predicate, "MATCHES needs a string pattern (column \(comparison.column))", column: comparison.column)
            }
            return CompiledComparison(aggregate: comparison.aggregate, left: try expression(comparison.left),
                                      op: comparison.op, right: right,
                                      fold: TextFold(caseInsensitive: comparison.caseInsensitive,
                                                     diacriticInsensitive: comparison.diacriticInsensitive),
                                      regex: regex)
        }

        private func expression(_ expression: Expression) throws(MappingError) -> CompiledExpression {
            switch expression {
            case .keyPath(let names, let count, let column):
                guard let entity, let model else { return .member(names, count: count) }
                return .path(try ResolvedKeyPath.resolve(names, count: count, from: entity, model: model, column: column))
            case .literal(let value):
                return .value(PredicateValue(json: value))
            case .argument(let index, _):
                guard arguments.indices.contains(index) else { return .value(.null) }
                return .value(PredicateValue(json: arguments[index]))
            case .list(let elements):
                var compiled: [CompiledExpression] = []
                for element in elements { compiled.append(try self.expression(element)) }
                return .list(compiled)
            case .this:
                return .this
            }
        }
    }
}
