/// Counting for `ImportOptions.audit` and `strict`: which key paths of each mapping found a value,
/// and which representations lacked their identification. Off the hot path: an import that does
/// not ask pays one nil check per representation; one that asks looks each key path up again.
extension Importer {
    /// Counts one representation of `mapping` and the key paths that found a value in it.
    mutating func audit(_ node: Reader.Node, _ mapping: MappingPlan) {
        guard auditCounts != nil else { return }
        var counts = auditCounts?[mapping.index] ?? ImportAudit.Counts(mapping)
        counts.representations += 1
        for (position, attribute) in mapping.attributes.enumerated()
        where counts.attributeMatches.indices.contains(position) && firstPresent(attribute.alternatives, in: node) != nil {
            counts.attributeMatches[position] += 1
        }
        for (position, relationship) in mapping.relationships.enumerated() where counts.relationshipMatches.indices.contains(position) {
            // A relationship read from the import's metadata is not a key path of the payload.
            if relationship.keyPath.anchor == .metadata || resolve(relationship.keyPath, in: node) != nil {
                counts.relationshipMatches[position] += 1
            }
        }
        auditCounts?[mapping.index] = counts
    }

    /// Counts a representation of `mapping` that lacked its entity's identification.
    mutating func auditMissingIdentification(_ mapping: MappingPlan) {
        guard auditCounts != nil else { return }
        var counts = auditCounts?[mapping.index] ?? ImportAudit.Counts(mapping)
        if counts.missingIdentification == 0 { counts.firstMissingPath = path.text() }
        counts.missingIdentification += 1
        auditCounts?[mapping.index] = counts
    }
}
