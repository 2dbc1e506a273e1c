/// The model of a spec's `entities` section: what the graph holds. Built once by `SpecLoader`,
/// immutable afterwards, shared by every thread using the context.
public struct Model: Sendable {
    public let entities: [Entity]
    /// One per distinct (hierarchy root, identification attributes): sub-entities share their
    /// parent's map, so an identity names one object across the hierarchy.
    public let identityMapCount: Int
    /// Whether any relationship has a `minCount` or `maxCount` to check when a transaction commits.
    let hasCountRules: Bool
    private let entityIndexByName: [String: Int]

    init(entities: [Entity], identityMapCount: Int) {
        self.entities = entities
        self.identityMapCount = identityMapCount
        var byName: [String: Int] = [:]
        for entity in entities { byName[entity.name] = entity.index }
        self.entityIndexByName = byName
        hasCountRules = entities.contains { $0.relationships.contains { $0.minCount != nil || $0.maxCount != nil } }
    }

    public func entityIndex(named name: String) -> Int? { entityIndexByName[name] }

    public func entity(named name: String) -> Entity? {
        entityIndexByName[name].flatMap { entities.indices.contains($0) ? entities[$0] : nil }
    }

    /// True when `entity` is `ancestor` or descends from it.
    /// The relationship on the other side of `relationship`, if it has an inverse.
    public func inverse(of relationship: Relationship) -> Relationship? {
        guard let inverse = relationship.inverse, entities.indices.contains(relationship.destination),
              entities[relationship.destination].relationships.indices.contains(inverse) else { return nil }
        return entities[relationship.destination].relationships[inverse]
    }

    public func isKind(_ entity: Int, of ancestor: Int) -> Bool {
        var current: Int? = entity
        var steps = 0
        while let index = current, entities.indices.contains(index), steps <= entities.count {
            if index == ancestor { return true }
            current = entities[index].parent
            steps += 1
        }
        return false
    }
}

/// An immutable class rather than a struct: the importer and the store take entities per object, and
/// copying a struct of six collections cost a retain and a release of each.
public final class Entity: Sendable {
    public let name: String
    public let index: Int
    public let parent: Int?
    /// Inherited attributes come first, so an attribute's index is the same in every sub-entity.
    public let attributes: [Attribute]
    /// Inherited relationships come first, as attributes do.
    public let relationships: [Relationship]
    /// Indexes into `attributes`; empty when the entity has no identification (every import inserts).
    public let identification: [Int]
    /// The identity map objects of this entity are registered in; `nil` without identification.
    public let identityMap: Int?
    /// The name a store written with an earlier spec knows this entity by (`renamedFrom`).
    public let renamedFrom: String?
    private let attributeIndexByName: [String: Int]
    private let relationshipIndexByName: [String: Int]

    init(name: String, index: Int, parent: Int?, attributes: [Attribute], relationships: [Relationship],
         identification: [Int], identityMap: Int?, renamedFrom: String?) {
        self.name = name
        self.renamedFrom = renamedFrom
        self.index = index
        self.parent = parent
        self.attributes = attributes
        self.relationships = relationships
        self.identification = identification
        self.identityMap = identityMap
        self.attributeIndexByName = Dictionary(attributes.enumerated().map { ($1.name, $0) },
                                               uniquingKeysWith: { first, _ in first })
        self.relationshipIndexByName = Dictionary(relationships.enumerated().map { ($1.name, $0) },
                                                  uniquingKeysWith: { first, _ in first })
    }

    public func attributeIndex(named name: String) -> Int? { attributeIndexByName[name] }
    public func relationshipIndex(named name: String) -> Int? { relationshipIndexByName[name] }
}

/// An immutable class, as `Relationship` is: a store's reader takes each attribute out of its
/// entity's array per row and value, and copying a struct holding two strings and a value cost a
/// retain and a release of each.
public final class Attribute: Sendable {
    public let name: String
    public let type: AttributeType
    /// Used for new objects when the payload lacks the key and the mapping asks for defaults.
    public let defaultValue: AttributeValue?
    public let indexed: Bool
    /// The name a store written with an earlier spec knows this attribute by (`renamedFrom`).
    public let renamedFrom: String?

    public init(name: String, type: AttributeType, defaultValue: AttributeValue?, indexed: Bool, renamedFrom: String?) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.indexed = indexed
        self.renamedFrom = renamedFrom
    }
}

public enum DeleteRule: String, Sendable {
    case nullify, cascade, deny, noAction
}

/// An immutable class rather than a struct, as `Entity` is: the importer and the stores take a
/// relationship out of its entity's array per object and link, and copying a struct of two strings
/// cost a retain and a release of each (2% of an import's instructions).
public final class Relationship: Sendable {
    public let name: String
    public let destination: Int
    public let toMany: Bool
    public let ordered: Bool
    /// The index of the inverse relationship in the destination entity, if there is one.
    public let inverse: Int?
    public let deleteRule: DeleteRule
    public let minCount: Int?
    public let maxCount: Int?
    /// The name a store written with an earlier spec knows this relationship by (`renamedFrom`).
    public let renamedFrom: String?

    init(name: String, destination: Int, toMany: Bool, ordered: Bool, inverse: Int?, deleteRule: DeleteRule,
         minCount: Int?, maxCount: Int?, renamedFrom: String?) {
        self.name = name
        self.destination = destination
        self.toMany = toMany
        self.ordered = ordered
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = maxCount
        self.renamedFrom = renamedFrom
    }
}
