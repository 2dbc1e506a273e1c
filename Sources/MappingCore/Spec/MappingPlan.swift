/// A spec mapping compiled for the importer and the serializer: names resolved to indexes and keys
/// encoded once, so that an import does no name lookups per object. The plans are immutable
/// classes, not structs: the importer hands them around per object, and a struct this size was
/// copied each time (a memcpy and a retain per field).
public final class MappingPlan: Sendable {
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
    /// `"forceCollectionMapping": true`: an object is a collection whose members are the
    /// representations (`{"blake": {…}, "rachit": {…}}`), RestKit's dynamic keys.
    public let forcesCollection: Bool
    /// `"keyOfRepresentation": "name"`: the member key of each representation goes to this attribute.
    public let keyAttribute: Int?
    /// Relationships filled by lookup after the payload is mapped.
    public let connections: [ConnectionPlan]
    /// The attributes this mapping identifies objects by: the entity's, or the mapping's own
    /// `"identification"`. `identitySources` follows this list.
    public let identification: [Int]
    /// Identify by scanning the entity rather than through its identity map: for a mapping's own
    /// identification or an `identificationPredicate` (which filters the candidates).
    public let identifiesByScan: Bool
    let identificationPredicate: CompiledPredicate?
    /// `"modificationAttribute"`: an existing object whose stored value is not older than the
    /// incoming one is left as it is (it still counts as mapped).
    public let modificationAttribute: Int?
    /// `"deletionPredicate"`: objects this mapping mapped that match it afterwards are deleted.
    let deletionPredicate: CompiledPredicate?
    /// `"optional"`: the names of attributes and relationships whose keys a whole payload may lack
    /// without an audit warning.
    public let optional: Set<String>
    /// The keys its key paths of one step read, by slot (see `KeyPath.member`).
    public let members: MemberTable
    /// Per attribute mapping (as `attributes`), how the importer sets it; plain values, so the
    /// loop over a representation's attributes touches no class.
    let routes: [AttributeRoute]
    /// Whether an import's walk before mapping (`Importer.prefetch`) can compute this mapping's
    /// identities: identified through the identity map, not by a representation's key, and every
    /// identification value mapped by key paths without a transformer (values a transformer makes
    /// are left to the mapping run: a host's transformer is called only as mapping calls it).
    let prefetchesIdentity: Bool

    init(name: String, index: Int, entity: Int, rootPath: KeyPath?, attributes: [AttributeMappingPlan],
         relationships: [RelationshipMappingPlan], identitySources: [Int?], mapsSelf: Bool,
         defaultsForMissingAttributes: Bool, nullifiesMissingRelationships: Bool, forcesCollection: Bool,
         keyAttribute: Int?, connections: [ConnectionPlan], identification: [Int], identifiesByScan: Bool,
         identificationPredicate: CompiledPredicate?, modificationAttribute: Int?, deletionPredicate: CompiledPredicate?,
         optional: Set<String>, members: MemberTable, routes: [AttributeRoute]) {
        self.name = name
        self.index = index
        self.entity = entity
        self.rootPath = rootPath
        self.attributes = attributes
        self.relationships = relationships
        self.identitySources = identitySources
        self.mapsSelf = mapsSelf
        self.defaultsForMissingAttributes = defaultsForMissingAttributes
        self.nullifiesMissingRelationships = nullifiesMissingRelationships
        self.forcesCollection = forcesCollection
        self.keyAttribute = keyAttribute
        self.connections = connections
        self.identification = identification
        self.identifiesByScan = identifiesByScan
        self.identificationPredicate = identificationPredicate
        self.modificationAttribute = modificationAttribute
        self.deletionPredicate = deletionPredicate
        self.optional = optional
        self.members = members
        self.routes = routes
        prefetchesIdentity = !identifiesByScan && keyAttribute == nil && identitySources.allSatisfy { source in
            source.map { attributes.indices.contains($0) && attributes[$0].transformer == nil } ?? false
        }
    }
}

/// How the importer sets one attribute: straight from a gathered member slot (`slot` ≥ 0: one key
/// path of one step, no transformer) coerced to `type`, or (`slot` < 0) through the general path
/// of `Importer.applyAttribute` (alternatives, longer key paths, transformers).
struct AttributeRoute: Sendable {
    let slot: Int
    let attribute: Int
    let type: AttributeType

    init(_ mapping: AttributeMappingPlan, _ entity: Entity) {
        attribute = mapping.attribute
        if entity.attributes.indices.contains(mapping.attribute), mapping.transformer == nil, mapping.alternatives.count == 1,
           let member = mapping.alternatives.first?.member {
            slot = member.slot
            type = entity.attributes[mapping.attribute].type
        } else {
            slot = -1
            type = .json
        }
    }
}

public final class AttributeMappingPlan: Sendable {
    public let attribute: Int
    /// Where the value is read from: the first key path present in the representation wins.
    public let alternatives: [KeyPath]
    /// Applied to the incoming value before coercion, and in reverse when writing out.
    let transformer: Transformer?

    init(attribute: Int, alternatives: [KeyPath], transformer: Transformer?) {
        self.attribute = attribute
        self.alternatives = alternatives
        self.transformer = transformer
    }
}

/// How a relationship's new value combines with the old one (FastEasyMapping's policies, with
/// A = the current value and B = the mapped one):
/// - `assign`: B; A's objects stay in the graph, just disconnected.
/// - `objectMerge` (to-one): B, or A when the payload gives `null` or nothing that maps.
/// - `collectionMerge` (to-many; `union`): A ∪ B in order, old first; `null` keeps A.
/// - `objectReplace` (to-one): B, and A is deleted unless it is B.
/// - `collectionReplace` (to-many): B, and the objects of A − B are deleted.
/// `replace` picks the replace policy that fits the relationship.
public enum AssignmentPolicy: String, Sendable {
    case assign, objectMerge, collectionMerge, objectReplace, collectionReplace
}

public final class RelationshipMappingPlan: Sendable {
    public let relationship: Int
    public let keyPath: KeyPath
    /// The mapping for nested representations; `nil` when the payload refers to objects by identity
    /// (a bare value, or an array of them for a to-many).
    public let mapping: MappingRef?
    public let assignment: AssignmentPolicy
    /// Find existing objects only: never create one for this relationship.
    public let weak: Bool

    init(relationship: Int, keyPath: KeyPath, mapping: MappingRef?, assignment: AssignmentPolicy, weak: Bool) {
        self.relationship = relationship
        self.keyPath = keyPath
        self.mapping = mapping
        self.assignment = assignment
        self.weak = weak
    }
}

/// A dotted key path such as `company.address.city` or `tags.0`. A numeric step reads an array
/// element, or an object member of that name. No steps means the representation itself (`@self`).
/// A path may start from another representation than the one being mapped: `@parent.` (the
/// representation that holds this one; repeat it to go further up) or `@root.` (the payload's root).
///
/// Immutable classes, like the plans: the importer walks key paths per value, and copying these
/// structs cost a retain of every string and array inside.
public final class KeyPath: Sendable, CustomStringConvertible {
    public final class Step: Sendable {
        public let key: PlanKey
        public let index: Int?

        init(key: PlanKey, index: Int?) {
            self.key = key
            self.index = index
        }
    }

    public enum Anchor: Sendable, Equatable {
        case current
        case parent(levels: Int)
        case root
        /// `@metadata.`: the import's metadata (see `ImportOptions.metadata`).
        case metadata
    }

    public let anchor: Anchor
    public let steps: [Step]
    public let description: String
    /// The one key of the commonest path (`"name"`: one step, from the representation itself), so
    /// the importer can look it up without walking `steps`.
    let singleKey: PlanKey?
    /// For a key path of one step that its mapping reads (a `singleKey`), the mapping's index and
    /// the key's slot in that mapping's `MemberTable`: the importer finds the value there, gathered
    /// in one pass over the representation's members.
    let member: (mapping: Int, slot: Int)?

    public convenience init(_ text: String) {
        var unused = MemberTable.Builder()
        self.init(text, mapping: nil, members: &unused)
    }

    /// A key path of mapping `mapping` (nil: of none), its one key (if it has one) given a slot by
    /// `members`.
    init(_ text: String, mapping: Int?, members: inout MemberTable.Builder) {
        description = text
        var rest = Substring(text)
        var anchor = Anchor.current
        if rest == "@root" || rest.hasPrefix("@root.") {
            anchor = .root
            rest = rest.dropFirst("@root".count).drop(while: { $0 == "." })
        } else if rest.hasPrefix("@metadata.") {
            anchor = .metadata
            rest = rest.dropFirst("@metadata.".count)
        } else {
            var levels = 0
            while rest == "@parent" || rest.hasPrefix("@parent.") {
                levels += 1
                rest = rest.dropFirst("@parent".count).drop(while: { $0 == "." })
            }
            if levels > 0 { anchor = .parent(levels: levels) }
        }
        self.anchor = anchor
        if rest == "@self" || rest.isEmpty {
            steps = []
        } else {
            steps = rest.split(separator: ".", omittingEmptySubsequences: false).map { part in
                let name = String(part)
                let allDigits = !part.isEmpty && part.utf8.count <= 9
                    && part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                return Step(key: PlanKey(name), index: allDigits ? Int(name) : nil)
            }
        }
        singleKey = anchor == .current && steps.count == 1 ? steps.first?.key : nil
        if let mapping, let singleKey, let slot = members.slot(for: singleKey) {
            member = (mapping, slot)
        } else {
            member = nil
        }
    }

    /// The representation itself.
    public var isSelf: Bool { steps.isEmpty && anchor == .current }

    /// Reads from this representation (not from a parent or the root), so it can be written back.
    public var isWritable: Bool { anchor == .current }
}
