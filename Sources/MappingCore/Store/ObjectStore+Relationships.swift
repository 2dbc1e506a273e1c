/// Relationship changes that keep inverses in step, as Core Data does: setting one side updates the
/// other, and an object taken by a new owner through a to-one inverse leaves its previous owner.
extension ObjectStore {
    /// The one relationship setter: a to-many takes `targets` in order, a to-one the first of them
    /// (or none). Importer, connector and editor all set relationships through here.
    package mutating func setTargets(of owner: ObjectID, relationship index: Int, _ relationship: Relationship,
                             to targets: [ObjectID], model: Model) {
        if relationship.toMany {
            setToMany(owner, relationship: index, to: targets, model: model)
        } else {
            setToOne(owner, relationship: index, to: targets.first, model: model)
        }
    }

    /// Sets a to-one relationship of `owner` to `target` (or clears it with `nil`).
    private mutating func setToOne(_ owner: ObjectID, relationship index: Int, to target: ObjectID?, model: Model) {
        guard let entity = entityIndex(of: owner), let relationship = model.relationship(of: entity, at: index),
              !relationship.toMany, case .one(let old) = links(of: owner, index), old != target else { return }
        if let old { detachInverse(of: owner, relationship, from: old, model: model) }
        setLink(target, of: owner, relationship: index)
        if let target { attachInverse(of: owner, relationship, index: index, to: target, model: model) }
    }

    /// Sets a to-many relationship of `owner` to `targets` in order, dropping repeats.
    private mutating func setToMany(_ owner: ObjectID, relationship index: Int, to targets: [ObjectID], model: Model) {
        guard let entity = entityIndex(of: owner), let relationship = model.relationship(of: entity, at: index),
              relationship.toMany else { return }
        // A call that sets such lists reads them with their owners' rows when it runs again.
        if let log = session.faultLog, let inverse = relationship.inverse {
            log.listsSet.insert(ListKind(destination: relationship.destination, inverse: inverse))
        }
        guard case .many(let old) = links(of: owner, index) else { return }
        // A re-import mostly brings the targets the list holds, in its order: compared as they
        // came, no list is made (a list holds no repeats, so equal targets have none either).
        if old.ids == targets { return }
        let new = LinkList(targets)
        guard new != old else { return }
        modifyLinks(of: owner, relationship: index) { $0 = new }
        for removed in old.ids where !new.contains(removed) {
            detachInverse(of: owner, relationship, from: removed, model: model)
        }
        for added in new.ids where !old.contains(added) {
            attachInverse(of: owner, relationship, index: index, to: added, model: model)
        }
    }

    /// Records `owner` in the inverse of `relationship` on `target`. When that inverse is to-one and
    /// held by another object, that object loses `target` from its side first.
    private mutating func attachInverse(of owner: ObjectID, _ relationship: Relationship, index: Int,
                                        to target: ObjectID, model: Model) {
        guard let inverse = relationship.inverse else { return }
        // An owner's list the graph has not read stays so: the commit appends `owner` to it in the
        // database (`ObjectStore+Lists`).
        if !relationship.toMany && leavesListUnread(target, inverse, model: model) {
            journal?.noteListJoin(owner)
            return
        }
        switch inverseState(of: target, inverse: inverse, owner: owner) {
        case .absent, .listed, .held(by: owner):
            return
        case .unlisted:
            modifyLinks(of: target, relationship: inverse) { $0.append(owner) }
        case .held(let previousOwner):
            if let previousOwner, !leavesListUnread(previousOwner, index, model: model) {
                removeForward(from: previousOwner, relationship: index, target: target)
            }
            setLink(owner, of: target, relationship: inverse)
        }
    }

    /// Where `owner` stands in the inverse relationship on `target`, without keeping a reference to
    /// the target's storage (which would make the next change copy it).
    private enum InverseState: Equatable {
        case absent
        case listed, unlisted
        case held(by: ObjectID?)
    }

    private func inverseState(of target: ObjectID, inverse: Int, owner: ObjectID) -> InverseState {
        guard let links = links(of: target, inverse) else { return .absent }
        switch links {
        case .many(let list): return list.contains(owner) ? .listed : .unlisted
        case .one(let current): return .held(by: current)
        case .unread: return .absent  // never from `links(of:)`
        }
    }

    /// Removes `owner` from the inverse of `relationship` on `target`.
    mutating func detachInverse(of owner: ObjectID, _ relationship: Relationship, from target: ObjectID,
                                        model: Model) {
        guard let inverse = relationship.inverse else { return }
        if !relationship.toMany && leavesListUnread(target, inverse, model: model) { return }
        if relationship.toMany && clearsUnread(target, inverse, model: model) {
            journal?.noteUnlink(target, relationship: inverse, owner: owner)
            return
        }
        switch inverseState(of: target, inverse: inverse, owner: owner) {
        case .listed:
            modifyLinks(of: target, relationship: inverse) { $0.remove(owner) }
        case .held(by: owner):
            setLink(nil, of: target, relationship: inverse)
        default:
            return
        }
    }

    /// Drops `target` from `owner`'s side of a relationship without touching the inverse, which the
    /// caller is about to overwrite.
    private mutating func removeForward(from owner: ObjectID, relationship index: Int, target: ObjectID) {
        switch links(of: owner, index) {
        case .one(let current) where current == target:
            setLink(nil, of: owner, relationship: index)
        case .many:
            modifyLinks(of: owner, relationship: index) { $0.remove(target) }
        default:
            break
        }
    }
}

extension Model {
    /// The relationship at `index` of entity `entity`, if both exist.
    func relationship(of entity: Int, at index: Int) -> Relationship? {
        guard entities.indices.contains(entity), entities[entity].relationships.indices.contains(index) else {
            return nil
        }
        return entities[entity].relationships[index]
    }
}
