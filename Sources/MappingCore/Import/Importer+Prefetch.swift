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
    /// sets. Only the identity is read here, in code specialized for the reader; what is noted is
    /// the store's (`noteListsSet`, `notePrefetched`), so that nothing of this walk runs as
    /// unspecialized generic code (which cost ten times the mapping run's lookups).
    mutating func notePrefetch(_ node: Reader.Node, _ mapping: MappingPlan) {
        guard store.session.faultLog != nil, model.entities.indices.contains(mapping.entity) else { return }
        let entity = model.entities[mapping.entity]
        store.noteListsSet(by: mapping, of: entity)
        // Values that do not coerce are left to the mapping run, which reports them.
        guard mapping.prefetchesIdentity, let map = entity.identityMap,
              let key = try? identityKey(node, mapping, entity, keyValue: nil) else { return }
        store.notePrefetched(key, map: map)
    }
}

extension ObjectStore {
    /// Notes the to-manys `mapping` sets whole in the call's fault log, to be read with their
    /// owners' rows.
    mutating func noteListsSet(by mapping: MappingPlan, of entity: Entity) {
        guard let log = session.faultLog else { return }
        for relationshipMapping in mapping.relationships where entity.relationships.indices.contains(relationshipMapping.relationship) {
            let relationship = entity.relationships[relationshipMapping.relationship]
            if relationship.toMany, let inverse = relationship.inverse {
                log.listsSet.insert(ListKind(destination: relationship.destination, inverse: inverse))
            }
        }
    }

    /// Looks up an identity a payload carries (a miss is noted by the lookup). An identity the graph
    /// keeps for an object it evicted (a graph that knows every identity keeps them) finds a
    /// fault: its row is read with the others, before the run that maps.
    mutating func notePrefetched(_ key: IdentityKey, map: Int) {
        guard let log = session.faultLog else { return }
        if let found = lookup(map: map, key: key), faultEntity(found) != nil {
            log.faults.insert(found)
        }
    }
}
