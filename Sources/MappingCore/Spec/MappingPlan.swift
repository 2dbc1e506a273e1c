/// A spec mapping compiled for the importer and the serializer: names resolved to indexes and keys
/// encoded once, so that an import does no name lookups per object.
public struct MappingPlan: Sendable {
    public let name: String
    public let index: Int
    public let entity: Int
    /// Where the mapped representations sit in a payload when this mapping is applied at the top.
    public let rootPath: KeyPath?
    public let attributes: [AttributeMappingPlan]
    public let relationships: [RelationshipMappingPlan]
    /// For each identification attribute of the entity, the attribute mapping that feeds it
    /// (an index into `attributes`), or `nil` when this mapping does not map it.
    public let identitySources: [Int?]

    /// True when an attribute maps the representation itself (`@self` / `null` key path), so a
    /// bare scalar is a valid representation.
    public let mapsSelf: Bool
    /// `"missingAttributes": "default"`: a new object gets the attribute's default for a missing key.
    public let defaultsForMissingAttributes: Bool
    /// `"missingRelationships": "nullify"`: a missing relationship key counts as `null`.
    public let nullifiesMissingRelationships: Bool
}

public struct AttributeMappingPlan: Sendable {
    public let attribute: Int
    /// Where the value is read from: the first key path present in the representation wins.
    public let alternatives: [KeyPath]
}

/// How a relationship's new value combines with the old one (FastEasyMapping's policies).
public enum AssignmentPolicy: String, Sendable {
    case assign
}

public struct RelationshipMappingPlan: Sendable {
    public let relationship: Int
    public let keyPath: KeyPath
    /// The mapping for nested representations; `nil` when the payload refers to objects by identity
    /// (a bare value, or an array of them for a to-many).
    public let mapping: Int?
    public let assignment: AssignmentPolicy
    /// Find existing objects only: never create one for this relationship.
    public let weak: Bool
}

/// A dotted key path such as `company.address.city` or `tags.0`. A numeric step reads an array
/// element, or an object member of that name. No steps means the representation itself (`@self`).
public struct KeyPath: Sendable, CustomStringConvertible {
    public struct Step: Sendable {
        public let key: PlanKey
        public let index: Int?
    }

    public let steps: [Step]
    public let description: String

    public init(_ text: String) {
        description = text
        if text == "@self" || text.isEmpty {
            steps = []
        } else {
            steps = text.split(separator: ".", omittingEmptySubsequences: false).map { part in
                let name = String(part)
                let allDigits = !part.isEmpty && part.utf8.count <= 9
                    && part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                return Step(key: PlanKey(name), index: allDigits ? Int(name) : nil)
            }
        }
    }

    public var isSelf: Bool { steps.isEmpty }
}
