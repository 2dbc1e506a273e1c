/// To-manys a store-backed graph leaves unread. A one-to-many (a company's employees) is kept in
/// the database on its targets' rows: their to-one column and its position. Reading an object
/// does not read such lists: a company with 300 employees costs one row, not 301. A list is read
/// when something reads or replaces it (`links(of:)` notes it, and the call runs again once it is
/// read, as for faults), or when the whole graph is read.
///
/// Moving a target between owners whose lists are unread reads neither list: the target's own
/// row says where it belongs, and the commit tells the database to clear the place the target
/// left (a gap: stored places keep a list's order, see `StoreLayout+Lists`) and to append it at the
/// end of the list it joined (`StoreCommit.listMoves`), which is where memory would put it. So an
/// import that gives 10,000 people their companies reads no company's employees.
///
/// A context with observers or watches reads every list it holds (its change sets name the
/// owners whose lists changed, which needs the lists), and so does a list with count rules
/// (`minCount`/`maxCount` are checked on the objects a change touches). Inside a transaction that
/// spans calls, a change reads the lists it changes: a later call of the transaction may read
/// such a list, and the database's copy would lack the moves not committed yet.
extension ObjectStore {
    /// Whether a change to the to-many `relationship` of `owner` (a one-to-many, changed from its
    /// targets' side) can leave the list unread: the list is unread, or `owner` is a fault; the
    /// context collects no change sets; the list has no count rules.
    @inline(__always) func leavesListUnread(_ owner: ObjectID, _ relationship: Int, model: Model) -> Bool {
        guard session.rowSource != nil, !session.collectsChanges, !session.explicitTransaction,
              let kind = faultEntity(owner) ?? (listIsUnread(owner, relationship) ? readEntity(owner) : nil),
              let declared = model.relationship(of: kind, at: relationship), declared.toMany,
              model.inverse(of: declared)?.toMany == false, declared.minCount == nil, declared.maxCount == nil else { return false }
        return true
    }

    /// Whether a target not read yet that leaves a one-to-many can stay unread: its to-one
    /// `relationship` (no count rule) is cleared in the database by the commit
    /// (`StoreCommit.unlinked`), as long as the context collects no change sets (which would name
    /// the target). A run that touches it later reads it and runs again, so nothing sees it stale.
    func clearsUnread(_ target: ObjectID, _ relationship: Int, model: Model) -> Bool {
        guard session.rowSource != nil, !session.collectsChanges, !session.explicitTransaction, let kind = faultEntity(target),
              let declared = model.relationship(of: kind, at: relationship), !declared.toMany,
              declared.minCount == nil, declared.maxCount == nil else { return false }
        return true
    }

    /// Whether a graph reading `relationship` of `entity` from its store leaves it unread: a
    /// one-to-many, in a context that collects no change sets.
    func leavesUnreadWhenRead(_ relationship: Relationship, model: Model) -> Bool {
        relationship.toMany && !session.collectsChanges && relationship.minCount == nil && relationship.maxCount == nil
            && model.inverse(of: relationship)?.toMany == false
    }

    /// Reads the targets of the unread lists among `wanted`, in a few queries per relationship; a
    /// target not read yet becomes a fault, and one the open transaction deleted keeps its handle.
    package mutating func readLists(_ wanted: [ListFault], model: Model) throws(MappingError) {
        guard let source = session.rowSource, !wanted.isEmpty else { return }
        struct Group: Hashable, Comparable {
            let entity: Int
            let relationship: Int
            static func < (a: Group, b: Group) -> Bool { (a.entity, a.relationship) < (b.entity, b.relationship) }
        }
        var groups: [Group: [(owner: ObjectID, key: Int64)]] = [:]
        var seen: Set<ListFault> = []
        for fault in wanted where seen.insert(fault).inserted && listIsUnread(fault.owner, fault.relationship) {
            guard let kind = readEntity(fault.owner), let key = source.key(of: fault.owner) else { continue }
            // Grouped by the owner's entity and relationship: one query answers a group.
            groups[Group(entity: kind, relationship: fault.relationship), default: []].append((fault.owner, key))
        }
        var made = IntegerKeyTable()
        for (group, owners) in groups.sorted(by: { $0.key < $1.key }) {
            let kind = group.entity
            guard let relationship = model.relationship(of: kind, at: group.relationship) else { continue }
            let lists = try source.lists(of: model.entities[kind], relationship: group.relationship, owners: owners.map(\.key))
            for (owner, key) in owners {
                var targets: [ObjectID] = []
                for targetKey in lists[key] ?? [] {
                    let known = target(targetKey, relationship, &made, source)
                    if let read = readEntity(known), !model.isKind(read, of: relationship.destination) {
                        throw MappingError(.store, "\(model.entities[kind].name).\(relationship.name) of a row links to a "
                                           + "\(model.entities[read].name), not a \(model.entities[relationship.destination].name): "
                                           + "the store was changed by hand", attribute: "\(model.entities[kind].name).\(relationship.name)")
                    }
                    targets.append(known)
                }
                setStoredLinks(.many(LinkList(targets)), of: owner, relationship: group.relationship)
            }
        }
        if made.count > 0 { source.attached([], as: made.entries) }
    }

    /// Reads `object`'s relationship `name` if it is a list not read yet (`object` read already).
    package mutating func readList(of object: ObjectID, named name: String, model: Model) throws(MappingError) {
        guard isPartial, let kind = readEntity(object), model.entities.indices.contains(kind),
              let index = model.entities[kind].relationshipIndex(named: name) else { return }
        try readLists([ListFault(owner: object, relationship: index)], model: model)
    }

    /// Reads every list the graph holds unread (a context that starts collecting change sets).
    package mutating func readUnreadLists(model: Model) throws(MappingError) {
        guard isPartial, session.mayHoldUnreadLists, journal == nil else { return }
        session.mayHoldUnreadLists = false
        var wanted: [ListFault] = []
        for slot in 0..<slotsUsed {
            guard let object = liveID(slot: slot), let kind = readEntity(object), model.entities.indices.contains(kind) else { continue }
            for index in model.entities[kind].relationships.indices where listIsUnread(object, index) {
                wanted.append(ListFault(owner: object, relationship: index))
            }
        }
        try readLists(wanted, model: model)
    }

    /// What a commit tells the database about targets that left or joined unread lists: for each
    /// object the commit made, changed or deleted, each to-one whose inverse is such a list, when
    /// its owner changed.
    func listMoves(of journal: Journal, updated: [ObjectID], deleted: [(object: ObjectID, before: ObjectRecord)],
                   model: Model) -> [StoreCommit.ListMove] {
        guard isPartial else { return [] }
        var moves: [StoreCommit.ListMove] = []
        // Only the to-ones are read (no record is copied): a commit of many rows asks this of each.
        func note(_ object: ObjectID, _ entity: Entity, before: ObjectRecord?, live: Bool) {
            for (index, relationship) in entity.relationships.enumerated() where !relationship.toMany {
                guard let inverse = relationship.inverse, let declared = model.inverse(of: relationship), declared.toMany else { continue }
                var old: ObjectID?
                if let before, before.links.indices.contains(index), case .one(let target) = before.links[index] { old = target }
                var new: ObjectID?
                if live, case .one(let target) = links(of: object, index) { new = target }
                guard old != new else { continue }
                let left = old.flatMap { unreadList($0, inverse) ? $0 : nil }
                let joined = new.flatMap { unreadList($0, inverse) ? $0 : nil }
                guard left != nil || joined != nil else { continue }
                moves.append(.init(object: object, entity: entity, relationship: index, left: left, joined: joined))
            }
        }
        for object in journal.created {
            guard let kind = entityIndex(of: object), model.entities.indices.contains(kind) else { continue }
            note(object, model.entities[kind], before: nil, live: true)
        }
        for object in updated {
            guard let slot = liveSlot(of: object), let before = journal.beforeImages[slot], let kind = entityIndex(of: object),
                  model.entities.indices.contains(kind) else { continue }
            note(object, model.entities[kind], before: before, live: true)
        }
        for (object, before) in deleted where model.entities.indices.contains(before.entity) {
            note(object, model.entities[before.entity], before: before, live: false)
        }
        // Appended in the order they joined, as memory appends them (stable: one object's moves
        // keep their order).
        let order = journal.listJoins
        return moves.enumerated().sorted { a, b in
            (order[a.element.object] ?? Int.max, a.offset) < (order[b.element.object] ?? Int.max, b.offset)
        }.map(\.element)
    }

    /// Whether the list `relationship` of `owner` is not in the graph: unread, or `owner` a fault.
    func unreadList(_ owner: ObjectID, _ relationship: Int) -> Bool {
        faultEntity(owner) != nil || listIsUnread(owner, relationship)
    }
}

/// A to-many of one object (owner and relationship index), as a call that needs it notes it.
package struct ListFault: Hashable {
    let owner: ObjectID
    let relationship: Int

    package init(owner: ObjectID, relationship: Int) {
        self.owner = owner
        self.relationship = relationship
    }
}

/// A relationship pair by its to-many's destination and the inverse to-one there, which names it
/// whatever sub-entity of the owner holds it.
package struct ListKind: Hashable {
    let destination: Int
    let inverse: Int
}
