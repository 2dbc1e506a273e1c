/// The in-memory graph: object records in slots, one member list per entity (creation order) and
/// one identity map per identification. Every change goes through the methods here so that an
/// open transaction can record what to restore (see `ObjectStore+Transaction.swift`).
struct ObjectStore {
    let tag: UInt16
    private(set) var records: [ObjectRecord?] = []
    private var generations: [UInt16] = []
    private var freeSlots: [UInt32] = []
    /// The objects of each entity (exactly that entity, not sub-entities) in creation order.
    private(set) var members: [[ObjectID]]
    private var identityMaps: [[IdentityKey: ObjectID]]
    var journal: Journal?

    init(model: Model, tag: UInt16) {
        self.tag = tag
        members = Array(repeating: [], count: model.entities.count)
        identityMaps = Array(repeating: [:], count: model.identityMapCount)
    }

    // MARK: Reading

    /// The record of a live object of this store; `nil` for a stale, foreign or malformed handle.
    func record(_ id: ObjectID) -> ObjectRecord? {
        let slot = id.slot
        guard id.tag == tag, records.indices.contains(slot), generations[slot] == id.generation else { return nil }
        return records[slot]
    }

    func contains(_ id: ObjectID) -> Bool { record(id) != nil }

    func lookup(map: Int, key: IdentityKey) -> ObjectID? {
        guard identityMaps.indices.contains(map) else { return nil }
        return identityMaps[map][key]
    }

    var objectCount: Int { records.count - freeSlots.count }

    // MARK: Changing

    /// A new object of `entity`, registered in its entity's member list.
    mutating func create(_ entity: Entity) -> ObjectID {
        let slot: UInt32
        if let reused = freeSlots.popLast() {
            slot = reused
            records[Int(slot)] = ObjectRecord(entity: entity)
        } else {
            slot = UInt32(truncatingIfNeeded: records.count)
            records.append(ObjectRecord(entity: entity))
            generations.append(1)
        }
        let id = ObjectID(tag: tag, generation: generations[Int(slot)], slot: slot)
        if members.indices.contains(entity.index) { members[entity.index].append(id) }
        journal?.noteCreated(id)
        return id
    }

    mutating func register(_ id: ObjectID, map: Int, key: IdentityKey) {
        guard identityMaps.indices.contains(map) else { return }
        let previous = identityMaps[map].updateValue(id, forKey: key)
        journal?.identityChanges.append(.init(map: map, key: key, previous: previous))
    }

    /// Applies `change` to a live object's record, first saving the record for rollback if a
    /// transaction is open. Does nothing for a handle that is not live.
    mutating func update(_ id: ObjectID, _ change: (inout ObjectRecord) -> Void) {
        guard record(id) != nil else { return }
        let slot = id.slot
        // Optional chaining changes the journal in place; copying it out would copy its tables.
        if journal?.isNew(id) == false, journal?.beforeImages[slot] == nil {
            journal?.beforeImages[slot] = records[slot]
        }
        if var current = records[slot] {
            records[slot] = nil  // keep the record's arrays uniquely referenced while changing them
            change(&current)
            records[slot] = current
        }
    }

    mutating func setValue(_ value: AttributeValue?, of id: ObjectID, attribute: Int) {
        guard let current = record(id), current.values.indices.contains(attribute),
              current.values[attribute] != value else { return }
        update(id) { $0.values[attribute] = value }
    }

    // MARK: Transaction support

    /// Removes an object created in the transaction being rolled back.
    mutating func discardCreated(_ id: ObjectID) {
        let slot = id.slot
        guard records.indices.contains(slot), generations[slot] == id.generation,
              let entity = records[slot]?.entity else { return }
        records[slot] = nil
        generations[slot] = generations[slot] &+ 1 == 0 ? 1 : generations[slot] &+ 1
        freeSlots.append(UInt32(truncatingIfNeeded: slot))
        if members.indices.contains(entity), members[entity].last == id { members[entity].removeLast() }
    }

    mutating func restore(slot: Int, to record: ObjectRecord?) {
        guard records.indices.contains(slot) else { return }
        records[slot] = record
    }

    mutating func restoreIdentity(map: Int, key: IdentityKey, to previous: ObjectID?) {
        guard identityMaps.indices.contains(map) else { return }
        identityMaps[map][key] = previous
    }
}
