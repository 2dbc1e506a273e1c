extension ObjectStore {
    /// The rows the transaction `journal` recorded, read from the store as it is at the commit.
    func storeCommit(of journal: Journal, changes: ChangeSet, model: Model) -> StoreCommit {
        var commit = StoreCommit(model: model)
        let graph = commitGraph()
        var positions = PositionCache()
        for object in journal.created {
            if let row = row(object, model, graph, &positions, changed: []) { commit.inserted.append(row) }
        }
        // Rows written already (new ones are: `isNew`, rather than a set of every object a cold
        // import made).
        var written: Set<ObjectID> = []
        for updated in changes.updated where !journal.isNew(updated.object) && written.insert(updated.object).inserted {
            let before = liveSlot(of: updated.object).flatMap { journal.beforeImages[$0] }
            if let row = row(updated.object, model, graph, &positions, changed: updated.changed, before: before) { commit.updated.append(row) }
        }
        // An owner whose to-many changed may move its targets: the rows whose place in it is not
        // the one they had are written too (appending moves none; removing one moves those after it).
        // Places count live targets, as `row` does: those of the list before the commit that were
        // live then (live now, or deleted by this commit).
        let deletedHere = Set(journal.deleted.map {
            ObjectID(tag: space.tag, generation: $0.generation, slot: UInt32(truncatingIfNeeded: space.firstSlot + $0.slot))
        })
        for updated in changes.updated {
            guard let kind = entityIndex(of: updated.object), model.entities.indices.contains(kind) else { continue }
            let entity = model.entities[kind]
            let before = liveSlot(of: updated.object).flatMap { journal.beforeImages[$0] }
            for (index, relationship) in entity.relationships.enumerated()
            where relationship.toMany && updated.changed.contains(relationship.name) && model.inverse(of: relationship)?.toMany == false {
                // The list's targets as they were placed: a target kept its place when it is
                // the one there before (a list holds each target once), so no table is made.
                var placedBefore: [ObjectID] = []
                if let before, before.links.indices.contains(index), case .many(let list) = before.links[index] {
                    placedBefore.reserveCapacity(list.ids.count)
                    for target in list.ids where contains(target) || deletedHere.contains(target) { placedBefore.append(target) }
                }
                var place = 0
                for target in targets(of: updated.object, index) where contains(target) {
                    defer { place += 1 }
                    let kept = placedBefore.indices.contains(place) && placedBefore[place] == target
                    guard !kept, !journal.isNew(target), written.insert(target).inserted else { continue }
                    if faultEntity(target) != nil, let inverse = relationship.inverse, model.entities.indices.contains(relationship.destination) {
                        commit.repositioned.append(.init(object: target, entity: model.entities[relationship.destination],
                                                         relationship: inverse, position: place))
                        continue
                    }
                    if let row = row(target, model, graph, &positions, changed: []) { commit.moved.append(row) }
                }
            }
        }
        var deletedImages: [(object: ObjectID, before: ObjectRecord)] = []
        for (slot, generation) in journal.deleted {
            let object = ObjectID(tag: space.tag, generation: generation, slot: UInt32(truncatingIfNeeded: space.firstSlot + slot))
            guard !journal.isNew(object), let before = journal.beforeImages[slot],
                  model.entities.indices.contains(before.entity) else { continue }
            commit.deleted.append((object, model.entities[before.entity]))
            deletedImages.append((object, before))
        }
        commit.listMoves = listMoves(of: journal, updated: changes.updated.map(\.object), deleted: deletedImages, model: model)
        for (object, relationship, owner) in journal.unlinked {
            guard let kind = faultEntity(object), model.entities.indices.contains(kind) else { continue }
            commit.unlinked.append(.init(object: object, entity: model.entities[kind], relationship: relationship, owner: owner))
        }
        return commit
    }

    /// Each long to-many's targets by position, made once per commit: rows ask for their position
    /// in their owner's list, and a search of a long list per row would be quadratic in its length
    /// (a short one is searched: a dictionary per person's phones cost more than the search).
    struct PositionCache {
        struct Key: Hashable {
            let owner: ObjectID
            let relationship: Int
        }
        var positions: [Key: [ObjectID: Int]] = [:]
        /// Lists up to this long are searched for each row, not indexed.
        static let searched = 16
    }

    private func row(_ object: ObjectID, _ model: Model, _ graph: StoreCommit.Graph, _ cache: inout PositionCache, changed: [String],
                     before: ObjectRecord? = nil) -> StoreCommit.Row? {
        guard let place = place(of: object), !place.isFault, model.entities.indices.contains(Int(place.entity)),
              tables.indices.contains(Int(place.entity)) else { return nil }
        let kind = Int(place.entity)
        let entity = model.entities[kind]
        let links = StoreCommit.RowLinks(graph: graph, table: kind, row: place.row, count: tables[kind].links.count)
        var positions: [Int?] = []
        positions.reserveCapacity(entity.relationships.count)
        for (index, relationship) in entity.relationships.enumerated() {
            // An owner's list not read: the database's position stands, or `listMoves` sets it.
            guard !relationship.toMany, let inverse = relationship.inverse, links.indices.contains(index),
                  let owner = links.target(index), !unreadList(owner, inverse), let ownerLinks = self.links(of: owner, inverse) else {
                positions.append(nil)
                continue
            }
            // A short list (most: a person's phones) is searched; a long one is indexed once.
            if ownerLinks.targets.count <= PositionCache.searched {
                var position = 0
                var found: Int?
                for target in ownerLinks.targets where contains(target) {
                    if target == object {
                        found = position
                        break
                    }
                    position += 1
                }
                positions.append(found)
                continue
            }
            let key = PositionCache.Key(owner: owner, relationship: inverse)
            if cache.positions[key] == nil {
                var byObject: [ObjectID: Int] = [:]
                var position = 0
                for target in ownerLinks.targets where contains(target) {
                    byObject[target] = position
                    position += 1
                }
                cache.positions[key] = byObject
            }
            positions.append(cache.positions[key]?[object])
        }
        // Only the to-manys the commit changed: the lists of the others are not copied.
        let held = before.map { image in
            image.links.enumerated().map { index, link -> [ObjectID] in
                guard case .many(let list) = link, entity.relationships.indices.contains(index),
                      changed.contains(entity.relationships[index].name) else { return [] }
                return list.ids
            }
        }
        let values = StoreCommit.Values(graph: graph, table: kind, row: place.row, count: tables[kind].columns.count)
        return StoreCommit.Row(object: object, entity: entity, values: values, links: links, positions: positions,
                               changed: changed, before: held)
    }
}
