/// Deletion with Core Data's delete rules, applied to the relationships of each deleted object:
/// `nullify` removes it from the inverse side, `cascade` deletes the related objects too
/// (transitively; cycles are fine), `deny` refuses the whole deletion while related objects exist,
/// and `noAction` leaves the other side alone (readers skip the stale handle it keeps).
extension ObjectStore {
    /// Deletes `object` and whatever its cascade rules reach. Throws, deleting nothing, when a `deny`
    /// relationship still holds objects that are not being deleted along with it.
    mutating func delete(_ object: ObjectID, model: Model) throws(MappingError) {
        guard record(object) != nil else { return }
        let doomed = cascadeClosure(of: object, model: model)
        for victim in doomed {
            try checkDeny(victim, sparing: doomed, model: model)
        }
        for victim in doomed {
            guard let current = record(victim), model.entities.indices.contains(current.entity) else { continue }
            let entity = model.entities[current.entity]
            for (index, relationship) in entity.relationships.enumerated()
            where current.links.indices.contains(index) && relationship.deleteRule != .noAction {
                for target in current.links[index].targets where !doomed.contains(target) {
                    detachInverse(of: victim, relationship, from: target, model: model)
                }
            }
            remove(victim, identity: IdentityMap.key(of: current, entity))
        }
    }

    /// The object and every object its `cascade` relationships reach, transitively.
    private func cascadeClosure(of object: ObjectID, model: Model) -> Set<ObjectID> {
        var doomed: Set<ObjectID> = [object]
        var pending = [object]
        while let next = pending.popLast() {
            guard let current = record(next), model.entities.indices.contains(current.entity) else { continue }
            for (index, relationship) in model.entities[current.entity].relationships.enumerated()
            where relationship.deleteRule == .cascade && current.links.indices.contains(index) {
                for target in current.links[index].targets where contains(target) && doomed.insert(target).inserted {
                    pending.append(target)
                }
            }
        }
        return doomed
    }

    private func checkDeny(_ object: ObjectID, sparing doomed: Set<ObjectID>, model: Model) throws(MappingError) {
        guard let current = record(object), model.entities.indices.contains(current.entity) else { return }
        let entity = model.entities[current.entity]
        for (index, relationship) in entity.relationships.enumerated()
        where relationship.deleteRule == .deny && current.links.indices.contains(index) {
            let holding = current.links[index].targets.filter { contains($0) && !doomed.contains($0) }
            if !holding.isEmpty {
                throw MappingError(.denied, "cannot delete a \(entity.name): its relationship \"\(relationship.name)\" (delete rule deny) still holds \(holding.count) object(s)",
                                   attribute: entity.name + "." + relationship.name)
            }
        }
    }
}
