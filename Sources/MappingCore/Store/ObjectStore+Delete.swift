/// Deletion with Core Data's delete rules, applied to the relationships of each deleted object:
/// `nullify` removes it from the inverse side, `cascade` deletes the related objects too
/// (transitively; cycles are fine), `deny` refuses the whole deletion while related objects exist,
/// and `noAction` leaves the other side alone (readers skip the stale handle it keeps).
extension ObjectStore {
    /// Deletes `object` and whatever its cascade rules reach. Throws, deleting nothing, when a `deny`
    /// relationship still holds objects that are not being deleted along with it.
    package mutating func delete(_ object: ObjectID, model: Model) throws(MappingError) {
        guard contains(object) else { return }
        let doomed = cascadeClosure(of: object, model: model)
        for victim in doomed {
            try checkDeny(victim, sparing: doomed, model: model)
        }
        for victim in doomed {
            guard let kind = entityIndex(of: victim), model.entities.indices.contains(kind) else { continue }
            let entity = model.entities[kind]
            for (index, relationship) in entity.relationships.enumerated() where relationship.deleteRule != .noAction {
                for target in links(of: victim, index)?.targets ?? [] where !doomed.contains(target) {
                    detachInverse(of: victim, relationship, from: target, model: model)
                }
            }
            remove(victim, identity: identity(of: victim, entity))
        }
    }

    /// The object and every object its `cascade` relationships reach, transitively.
    private func cascadeClosure(of object: ObjectID, model: Model) -> Set<ObjectID> {
        var doomed: Set<ObjectID> = [object]
        var pending = [object]
        while let next = pending.popLast() {
            guard let kind = entityIndex(of: next), model.entities.indices.contains(kind) else { continue }
            for (index, relationship) in model.entities[kind].relationships.enumerated() where relationship.deleteRule == .cascade {
                for target in targets(of: next, index) where doomed.insert(target).inserted {
                    pending.append(target)
                }
            }
        }
        return doomed
    }

    private func checkDeny(_ object: ObjectID, sparing doomed: Set<ObjectID>, model: Model) throws(MappingError) {
        guard let kind = entityIndex(of: object), model.entities.indices.contains(kind) else { return }
        let entity = model.entities[kind]
        for (index, relationship) in entity.relationships.enumerated() where relationship.deleteRule == .deny {
            let holding = targets(of: object, index).filter { !doomed.contains($0) }
            if !holding.isEmpty {
                throw MappingError(.denied, "cannot delete a \(entity.name): its relationship \"\(relationship.name)\" (delete rule deny) still holds \(holding.count) object(s)",
                                   attribute: entity.name + "." + relationship.name)
            }
        }
    }
}
