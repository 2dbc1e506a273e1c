/// What one commit changed: the objects it inserted, the objects it updated with the names of the
/// attributes and relationships whose values differ, and the objects it deleted, named by entity and
/// identity since their handles are stale. Objects made and deleted within the same commit appear
/// nowhere; a rollback, or a commit that changed nothing, yields no change set. A relationship set
/// on one side changes the other side too, so both objects are reported as updated.
public struct ChangeSet: Sendable, Equatable {
    public struct Inserted: Sendable, Equatable {
        public let object: ObjectID
        public let entity: String
    }

    public struct Updated: Sendable, Equatable {
        public let object: ObjectID
        public let entity: String
        /// Attribute and relationship names, in the entity's declaration order.
        public let changed: [String]
    }

    public struct Deleted: Sendable, Equatable {
        public let entity: String
        /// The identification value (an object of them for a compound one); `.null` when the entity
        /// has none or the object's was incomplete.
        public let identity: JSONValue
    }

    public internal(set) var inserted: [Inserted] = []
    public internal(set) var updated: [Updated] = []
    public internal(set) var deleted: [Deleted] = []

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ObjectStore {
    /// The change set of the transaction `journal` recorded, read from the store as it is now (at
    /// the commit). Costs a walk over the objects the transaction touched, so it is computed only
    /// when a context has observers.
    func changeSet(of journal: Journal, model: Model) -> ChangeSet {
        var changes = ChangeSet()
        // What was live when the transaction began: the objects live now that it did not make, and
        // the ones it deleted that it had not made. Relationship targets are compared as such, so a
        // deleted target counts as a change of its owner's relationship.
        let deletedHere = Set(journal.deleted.map {
            ObjectID(tag: space.tag, generation: $0.generation, slot: UInt32(truncatingIfNeeded: space.firstSlot + $0.slot))
        }.filter { !journal.isNew($0) })
        let liveBefore = LiveBefore(deletedHere: deletedHere, journal: journal)
        for object in journal.created {
            guard let kind = entityIndex(of: object), model.entities.indices.contains(kind) else { continue }
            changes.inserted.append(.init(object: object, entity: model.entities[kind].name))
        }
        for (slot, before) in journal.beforeImages.sorted(by: { $0.key < $1.key }) {
            guard model.entities.indices.contains(before.entity) else { continue }
            let entity = model.entities[before.entity]
            guard let object = liveID(slot: slot), place(of: object) != nil else {
                changes.deleted.append(.init(entity: entity.name, identity: Self.identity(of: before, entity)))
                continue
            }
            let changed = changedNames(of: object, since: before, entity, liveBefore: liveBefore)
            if !changed.isEmpty { changes.updated.append(.init(object: object, entity: entity.name, changed: changed)) }
        }
        return changes
    }

    /// An object's identity as JSON: the single identification value, or an object of them.
    static func identity(of record: ObjectRecord, _ entity: Entity) -> JSONValue {
        guard entity.identityMap != nil, !entity.identification.isEmpty else { return .null }
        var members: [JSONMember] = []
        for attribute in entity.identification {
            guard record.values.indices.contains(attribute), entity.attributes.indices.contains(attribute),
                  let value = record.values[attribute] else { return .null }
            members.append(JSONMember(entity.attributes[attribute].name, value.jsonValue))
        }
        return members.count == 1 ? members[0].value : .object(members)
    }
}
