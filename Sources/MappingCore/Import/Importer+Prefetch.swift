/// On a graph that holds part of its store's rows, an import first walks the payload as the
/// progress count does (`countInAdvance`) and looks up every identity its representations carry.
/// The identities the graph does not hold (or holds as faults) are noted in the call's
/// `FaultLog`, with the to-manys the mappings set whole; if anything was noted, the run stops
/// before mapping anything. The call reads those rows (and those lists with them) in a few set
/// queries and runs again, so the first run that maps finds its objects, where before a whole
/// mapping run was made and thrown away to learn them. The runs after it walk no more: what the
/// walk noted has been read (what it missed, the mapping run notes as before).
extension Importer {
    /// Whether the walk noted rows the graph must read before this run can map.
    mutating func prefetch(_ references: [MappingRef], root: Reader.Node) -> Bool {
        guard let log = store.session.faultLog, log.isEmpty, !log.prefetched else { return false }
        log.walked = true
        prefetching = true
        defer { prefetching = false }
        _ = countInAdvance(references, root: root)
        depth = 0
        representations = []
        return !log.isEmpty
    }

    /// One representation: its identity looked up (a miss is noted), and the to-manys its mapping
    /// sets.
    mutating func notePrefetch(_ node: Reader.Node, _ mapping: MappingPlan) {
        guard let log = store.session.faultLog, model.entities.indices.contains(mapping.entity) else { return }
        let entity = model.entities[mapping.entity]
        for relationshipMapping in mapping.relationships where entity.relationships.indices.contains(relationshipMapping.relationship) {
            let relationship = entity.relationships[relationshipMapping.relationship]
            if relationship.toMany, let inverse = relationship.inverse {
                log.listsSet.insert(ListKind(destination: relationship.destination, inverse: inverse))
            }
        }
        // Values that do not coerce are left to the mapping run, which reports them; so are values
        // a transformer makes (a host's must be called only as mapping calls it).
        guard !mapping.identifiesByScan, mapping.keyAttribute == nil, let map = entity.identityMap,
              mapping.identitySources.allSatisfy({ source in
                  source.map { mapping.attributes.indices.contains($0) && mapping.attributes[$0].transformer == nil } ?? false
              }),
              let key = try? identityKey(node, mapping, entity, keyValue: nil) else { return }
        // An identity the graph keeps for an object it evicted (a graph that knows every identity
        // keeps them) finds a fault: its row is read with the others, before the run that maps.
        if let found = store.lookup(map: map, key: key), store.faultEntity(found) != nil {
            log.faults.insert(found)
        }
    }
}
