/// Relationships: nested representations mapped (or bare identities looked up), then assigned
/// by the mapping's assignment policy with inverses kept in step.
extension Importer {
    /// Maps and assigns one relationship; returns whether its key was present.
    mutating func applyRelationship(_ relationshipMapping: RelationshipMappingPlan, from node: Reader.Node,
                                            to object: ObjectID, entity: Entity,
                                            nullifyMissing: Bool) throws(MappingError) -> Bool {
        let index = relationshipMapping.relationship
        guard entity.relationships.indices.contains(index) else { return false }
        let relationship = entity.relationships[index]
        if relationshipMapping.keyPath.anchor == .metadata {
            return try applyMetadataRelationship(relationshipMapping, to: object, relationship)
        }
        guard let target = resolve(relationshipMapping.keyPath, in: node) else {
            if nullifyMissing {
                try assign([], isNull: true, to: object, index, relationship, policy: relationshipMapping.assignment)
            }
            return false
        }
        for step in relationshipMapping.keyPath.steps { path.push(.key(step.key.name)) }
        defer { for _ in relationshipMapping.keyPath.steps { path.pop() } }
        // As in RestKit, the objects a dotted path passes through (`people` in `people.friends`)
        // count as representation levels for `@parent.` paths of the children.
        let intermediates = self.intermediates(of: relationshipMapping.keyPath, in: node)
        representations.append(contentsOf: intermediates)
        defer { representations.removeLast(intermediates.count) }

        var targets: [ObjectID] = []
        let create = !relationshipMapping.weak
        let isNull = reader.kind(of: target) == .null
        switch reader.kind(of: target) {
        case .null:
            break
        case .array where !relationship.toMany:
            throw MappingError(.type, "expected one object for the to-one relationship \(entity.name).\(relationship.name), found an array",
                               path: path.text(), attribute: entity.name + "." + relationship.name)
        default:
            if let nested = relationshipMapping.mapping {
                targets = try mapEach(target, nested, create: create)
            } else if reader.kind(of: target) == .array {
                try reader.forEachElement(of: target) { (position, element) throws(MappingError) in
                    guard reader.kind(of: element) != .null else { return }
                    path.push(.index(position))
                    if let found = try reference(element, relationship, create: create) { targets.append(found) }
                    path.pop()
                }
            } else if let found = try reference(target, relationship, create: create) {
                targets.append(found)
            }
        }
        try assign(targets, isNull: isNull, to: object, index, relationship, policy: relationshipMapping.assignment)
        return true
    }

    /// A relationship read from the import's metadata (`@metadata.custom`, RestKit's M6): the value is
    /// mapped by an importer over the Swift-held metadata, sharing this import's store.
    mutating func applyMetadataRelationship(_ relationshipMapping: RelationshipMappingPlan, to object: ObjectID,
                                                    _ relationship: Relationship) throws(MappingError) -> Bool {
        guard let value = metadataValue(relationshipMapping.keyPath), let nested = relationshipMapping.mapping else {
            return false
        }
        var targets: [ObjectID] = []
        if case .null = value {
            // null clears, as in the payload
        } else {
            var metadataImporter = Importer<JSONValueReader>(spec: spec, reader: JSONValueReader(), store: .placeholder)
            metadataImporter.hosts = hosts
            metadataImporter.options.metadata = options.metadata
            // The nesting continues there: a mapping that reads itself from metadata again ends in
            // MAPPING_EDEPTH, not in a stack overflow.
            metadataImporter.depth = depth
            metadataImporter.path = path
            swap(&metadataImporter.store, &store)
            defer { swap(&metadataImporter.store, &store) }
            targets = try metadataImporter.mapEach(value, nested, create: !relationshipMapping.weak)
        }
        try assign(targets, isNull: targets.isEmpty, to: object, relationshipMapping.relationship, relationship,
                   policy: relationshipMapping.assignment)
        return true
    }

    /// Combines the mapped targets with the relationship's current value by the assignment policy
    /// and sets the result, inverses following; the replace policies then delete what was dropped.
    mutating func assign(_ targets: [ObjectID], isNull: Bool, to object: ObjectID, _ index: Int,
                         _ relationship: Relationship, policy: AssignmentPolicy) throws(MappingError) {
        let current = policy.readsCurrent ? currentTargets(of: object, index) : []
        guard let result = policy.combine(current: current, incoming: targets, isNull: isNull) else { return }
        store.setTargets(of: object, relationship: index, relationship, to: result, model: model)
        if policy.deletesReplaced { try deleteReplaced(current, keeping: result) }
    }

    /// The replace policies' deletion of `old − new`, delete rules applied.
    mutating func deleteReplaced(_ old: [ObjectID], keeping new: [ObjectID]) throws(MappingError) {
        let kept = Set(new)
        for object in old where !kept.contains(object) {
            try store.delete(object, model: model)
        }
    }

    mutating func currentTargets(of object: ObjectID, _ index: Int) -> [ObjectID] {
        store.targets(of: object, index)
    }
}
