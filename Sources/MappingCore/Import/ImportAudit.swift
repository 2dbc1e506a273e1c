import MappingLock

/// How a payload fit its mappings, for imports that ask (`ImportOptions.audit`, `strict`): per
/// mapping applied, how many representations it mapped and how often each of its key paths found a
/// value; and the representations that lacked their identification. Its warnings are the mistakes
/// that otherwise pass in silence: a key path that matched nothing in the whole payload (a typo in
/// the spec, or a payload that changed), and representations without their identification (each
/// becomes a new object with no identity).
///
/// One audit may follow several imports (a chunked import's chunks): the counts add up.
public final class ImportAudit: Sendable {
    /// One attribute or relationship mapping and how often its key path found a value.
    public struct KeyPathUse: Sendable, Equatable {
        public let mapping: String
        /// `Entity.attribute` or `Entity.relationship`.
        public let element: String
        public let isRelationship: Bool
        /// The key path as the spec writes it (alternatives joined with " | ").
        public let keyPath: String
        /// Representations of the mapping in which the key path found a value (null included).
        public let matches: Int
        /// Representations the mapping mapped.
        public let representations: Int
        /// The mapping lists it in `"optional"`: a payload may lack it without a warning.
        public let isOptional: Bool
    }

    /// Representations of one mapping that lacked (part of) their entity's identification.
    public struct MissingIdentification: Sendable, Equatable {
        public let mapping: String
        public let entity: String
        /// The identification attributes, `Entity.attribute`.
        public let identification: [String]
        public let count: Int
        /// The JSON path of the first such representation.
        public let firstPath: String
    }

    /// One mistake an import found.
    public struct Warning: Sendable, Equatable {
        public enum Kind: Int, Sendable {
            /// A key path of a mapping that matched nothing in the whole payload.
            case unmatchedKeyPath = 1
            /// Representations without their entity's identification.
            case missingIdentification = 2
        }

        public let kind: Kind
        public let mapping: String
        /// What it is about: `Entity.attribute`, `Entity.relationship`, or the entity.
        public let element: String
        /// The key path (unmatched), or the JSON path of the first representation (missing).
        public let place: String
        /// The mapping's representations (unmatched), or how many lacked identification (missing).
        public let count: Int
        public let message: String

        init(_ use: KeyPathUse) {
            kind = .unmatchedKeyPath
            mapping = use.mapping
            element = use.element
            place = use.keyPath
            count = use.representations
            message = "key path \"\(use.keyPath)\" of mapping \"\(use.mapping)\" (\(use.element)) matched nothing in "
                + "\(use.representations) representation\(use.representations == 1 ? "" : "s")"
                + (use.isOptional ? " (the mapping lists it as optional)" : ": check its spelling against the payload")
        }

        init(_ missing: MissingIdentification) {
            kind = .missingIdentification
            mapping = missing.mapping
            element = missing.entity
            place = missing.firstPath
            count = missing.count
            message = "\(missing.count) representation\(missing.count == 1 ? "" : "s") of mapping \"\(missing.mapping)\" "
                + "lacked the identification \(missing.identification.joined(separator: ", ")) (first at \(missing.firstPath)): "
                + "each became a new \(missing.entity) with no identity"
        }
    }

    /// Per mapping (by index in the spec), what the imports counted.
    package struct Counts {
        var representations = 0
        var attributeMatches: [Int]
        var relationshipMatches: [Int]
        var missingIdentification = 0
        var firstMissingPath = ""

        init(_ mapping: MappingPlan) {
            attributeMatches = Array(repeating: 0, count: mapping.attributes.count)
            relationshipMatches = Array(repeating: 0, count: mapping.relationships.count)
        }
    }

    private struct State {
        var spec: CompiledSpec?
        var counts: [Int: Counts] = [:]
    }

    private let state = Locked(State())
    /// Whether key paths a mapping lists as `"optional"` are warned about too when they match nothing.
    public let warnsAboutOptional: Bool

    public init(warnsAboutOptional: Bool = false) {
        self.warnsAboutOptional = warnsAboutOptional
    }

    /// Adds one import's counts.
    package func add(_ counts: [Int: Counts], spec: CompiledSpec) {
        state.withLock { state in
            state.spec = spec
            for (mapping, new) in counts {
                guard var old = state.counts[mapping] else {
                    state.counts[mapping] = new
                    continue
                }
                old.representations += new.representations
                for index in old.attributeMatches.indices where new.attributeMatches.indices.contains(index) {
                    old.attributeMatches[index] += new.attributeMatches[index]
                }
                for index in old.relationshipMatches.indices where new.relationshipMatches.indices.contains(index) {
                    old.relationshipMatches[index] += new.relationshipMatches[index]
                }
                if old.missingIdentification == 0 { old.firstMissingPath = new.firstMissingPath }
                old.missingIdentification += new.missingIdentification
                state.counts[mapping] = old
            }
        }
    }

    /// Adds what another audit counted (a chunked import's own audit, once its chunks are mapped).
    public func add(_ other: ImportAudit) {
        guard other !== self else { return }
        let (spec, counts) = other.state.withLock { ($0.spec, $0.counts) }
        if let spec { add(counts, spec: spec) }
    }

    /// Every key path of every mapping that mapped at least one representation, in spec order.
    public var keyPaths: [KeyPathUse] {
        state.withLock { state in
            guard let spec = state.spec else { return [] }
            var uses: [KeyPathUse] = []
            for (index, counts) in state.counts.sorted(by: { $0.key < $1.key }) {
                guard let plan = spec.plan(index), spec.model.entities.indices.contains(plan.entity) else { continue }
                let entity = spec.model.entities[plan.entity]
                for (position, attribute) in plan.attributes.enumerated()
                where entity.attributes.indices.contains(attribute.attribute) && counts.attributeMatches.indices.contains(position) {
                    uses.append(KeyPathUse(mapping: plan.name, element: "\(entity.name).\(entity.attributes[attribute.attribute].name)",
                                           isRelationship: false,
                                           keyPath: attribute.alternatives.map(\.description).joined(separator: " | "),
                                           matches: counts.attributeMatches[position], representations: counts.representations,
                                           isOptional: plan.optional.contains(entity.attributes[attribute.attribute].name)))
                }
                for (position, relationship) in plan.relationships.enumerated()
                where entity.relationships.indices.contains(relationship.relationship) && counts.relationshipMatches.indices.contains(position) {
                    uses.append(KeyPathUse(mapping: plan.name, element: "\(entity.name).\(entity.relationships[relationship.relationship].name)",
                                           isRelationship: true, keyPath: relationship.keyPath.description,
                                           matches: counts.relationshipMatches[position], representations: counts.representations,
                                           isOptional: plan.optional.contains(entity.relationships[relationship.relationship].name)))
                }
            }
            return uses
        }
    }

    /// Per mapping, the representations that lacked their identification.
    public var missingIdentification: [MissingIdentification] {
        state.withLock { state in
            guard let spec = state.spec else { return [] }
            var found: [MissingIdentification] = []
            for (index, counts) in state.counts.sorted(by: { $0.key < $1.key }) where counts.missingIdentification > 0 {
                guard let plan = spec.plan(index), spec.model.entities.indices.contains(plan.entity) else { continue }
                let entity = spec.model.entities[plan.entity]
                let names = entity.identification.compactMap { entity.attributes.indices.contains($0) ? "\(entity.name).\(entity.attributes[$0].name)" : nil }
                found.append(MissingIdentification(mapping: plan.name, entity: entity.name, identification: names,
                                                   count: counts.missingIdentification, firstPath: counts.firstMissingPath))
            }
            return found
        }
    }

    /// Representations each mapping mapped, by mapping name.
    public var representations: [String: Int] {
        state.withLock { state in
            var byName: [String: Int] = [:]
            for (index, counts) in state.counts {
                if let plan = state.spec?.plan(index) { byName[plan.name] = counts.representations }
            }
            return byName
        }
    }

    /// MAPPING_EMAPPING listing the warnings, if there are any (a strict import's end).
    public func failIfWarned() throws(MappingError) {
        let found = warnings
        guard let first = found.first else { return }
        let rest = found.dropFirst().map(\.message)
        throw MappingError(.mapping, "strict import: " + ([first.message] + rest).joined(separator: "; "),
                           attribute: first.element)
    }

    /// The key paths that matched nothing (but those the mapping calls optional, unless
    /// `warnsAboutOptional`), then the representations without identification.
    public var warnings: [Warning] {
        keyPaths.filter { $0.matches == 0 && (warnsAboutOptional || !$0.isOptional) }.map(Warning.init)
            + missingIdentification.map(Warning.init)
    }
}
