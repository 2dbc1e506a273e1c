/// The in-memory graph: object records in slots, one member list per entity (creation order) and
/// one identity map per identification. Every change goes through the methods here so that an
/// open transaction can record what to restore (see `ObjectStore+Transaction.swift`).
struct ObjectStore {
    /// The store's tag and the slot number of its first slot in handles (see `HandleSpace`).
    let space: HandleSpace
    var tag: UInt16 { space.tag }
    private(set) var records: [ObjectRecord?] = []
    /// Per slot, the generation its live object's handles carry; 0 once the slot is retired.
    private var generations: [UInt16] = []
    private var freeSlots: [UInt32] = []
    private var retiredSlots = 0
    /// The objects of each entity (exactly that entity, not sub-entities) in creation order. Deleted
    /// objects stay until the list is compacted, so readers skip handles that are no longer live.
    private(set) var members: [[ObjectID]]
    /// How many live objects each entity has (exactly that entity).
    private(set) var liveCounts: [Int]
    private(set) var identityMaps: [IdentityMap]
    /// Indexes of `indexed` attributes, by (hierarchy root, attribute); `indexKeys[entity]` lists the
    /// attribute → index key pairs that apply to an entity.
    private(set) var indexes: [IndexKey: AttributeIndex] = [:]
    let indexKeys: [[Int: IndexKey]]
    private var nextSequence = 0
    var journal: Journal?
    /// True while a transaction opened with `begin()` spans calls.
    var explicitTransaction = false
    /// Whether the caller opened it (a failing call then says it rolled the caller's transaction
    /// back), rather than a chunked import for its own chunks.
    var transactionIsCallers = true
    /// Set while the context has observers: each commit then leaves its change set in
    /// `committedChanges`, for the context to hand to them once its lock is released.
    var collectsChanges = false
    var committedChanges: [ChangeSet] = []
    /// The database every commit is written to, if the context has one.
    var persistent: (any PersistentStore)?

    init(model: Model, space: HandleSpace) {
        self.space = space
        members = Array(repeating: [], count: model.entities.count)
        liveCounts = Array(repeating: 0, count: model.entities.count)
        identityMaps = Array(repeating: IdentityMap(), count: model.identityMapCount)
        var keys: [[Int: IndexKey]] = []
        var indexes: [IndexKey: AttributeIndex] = [:]
        for entity in model.entities {
            var forEntity: [Int: IndexKey] = [:]
            for (attribute, declared) in entity.attributes.enumerated() where declared.indexed {
                // The index lives with the entity that declares the attribute (the farthest
                // ancestor that has it), so one index covers the whole sub-hierarchy.
                var owner = entity.index
                while let parent = model.entities[owner].parent, model.entities[parent].attributes.count > attribute {
                    owner = parent
                }
                let key = IndexKey(entity: owner, attribute: attribute)
                forEntity[attribute] = key
                indexes[key] = indexes[key] ?? AttributeIndex()
            }
            keys.append(forEntity)
        }
        indexKeys = keys
        self.indexes = indexes
    }

    struct IndexKey: Hashable {
        let entity: Int
        let attribute: Int
    }

    /// The index of an attribute of an entity, if it is indexed.
    func indexKey(entity: Int, attribute: Int) -> IndexKey? {
        indexKeys.indices.contains(entity) ? indexKeys[entity][attribute] : nil
    }

    func index(_ key: IndexKey) -> AttributeIndex? { indexes[key] }

    /// Sorts the indexes that changed since their last range query (once per batch of changes).
    mutating func prepareIndexes() {
        for key in indexes.keys { indexes[key]?.prepareRanges() }
    }

    /// Updates the indexes for one object whose record goes from `old` to `new` (nil = absent).
    private mutating func reindex(_ id: ObjectID, from old: ObjectRecord?, to new: ObjectRecord?) {
        guard let entity = new?.entity ?? old?.entity, indexKeys.indices.contains(entity), !indexKeys[entity].isEmpty else {
            return
        }
        for (attribute, key) in indexKeys[entity] {
            let before = old.flatMap { $0.values.indices.contains(attribute) ? $0.values[attribute] : nil }
            let after = new.flatMap { $0.values.indices.contains(attribute) ? $0.values[attribute] : nil }
            guard before != after else { continue }
            if let before { indexes[key]?.remove(before, id) }
            if let after { indexes[key]?.insert(after, id) }
        }
    }

    // MARK: Reading

    /// The slot of a handle of this store that has not gone stale; `nil` for a stale, foreign or
    /// malformed handle. Every read and change by handle goes through this one check.
    @inline(__always) func liveSlot(of id: ObjectID) -> Int? {
        let slot = id.slot - space.firstSlot
        guard id.tag == space.tag, records.indices.contains(slot), generations[slot] == id.generation else { return nil }
        return slot
    }

    /// The record of a live object of this store; `nil` for a stale, foreign or malformed handle.
    func record(_ id: ObjectID) -> ObjectRecord? {
        guard let slot = liveSlot(of: id) else { return nil }
        return records[slot]
    }

    /// The entity of a live object, read in place (no copy of its record).
    func entityIndex(of id: ObjectID) -> Int? {
        guard let slot = liveSlot(of: id) else { return nil }
        return records[slot]?.entity
    }

    func contains(_ id: ObjectID) -> Bool { entityIndex(of: id) != nil }

    /// One attribute of a live object, read in place; `nil` when unset or for a handle not live.
    func attributeValue(of id: ObjectID, _ attribute: Int) -> AttributeValue? {
        guard let slot = liveSlot(of: id), let values = records[slot]?.values,
              values.indices.contains(attribute) else { return nil }
        return values[attribute]
    }

    /// The handle of the live object in `slot`, if there is one.
    func liveID(slot: Int) -> ObjectID? {
        guard records.indices.contains(slot), records[slot] != nil else { return nil }
        return handle(slot: slot)
    }

    func lookup(map: Int, key: IdentityKey) -> ObjectID? {
        guard identityMaps.indices.contains(map) else { return nil }
        return identityMaps[map][key]
    }

    var objectCount: Int { records.count - freeSlots.count - retiredSlots }

    /// How many slot numbers the store has used, for `HandleSpace.release`.
    var slotsUsed: Int { records.count }

    /// The handle of `slot` as it is now. Slot numbers in handles start at the store's first slot;
    /// a store never reaches 2^31 slots (the records alone would not fit in memory), so the sum
    /// stays within 32 bits.
    private func handle(slot: Int) -> ObjectID {
        ObjectID(tag: space.tag, generation: generations[slot], slot: UInt32(truncatingIfNeeded: space.firstSlot + slot))
    }

    /// Makes `slot` reusable, unless its generations are used up: then it is retired for good, so
    /// that no handle of its past objects can ever name a later one.
    private mutating func free(slot: Int) {
        if generations[slot] == 0 {
            retiredSlots += 1
        } else {
            freeSlots.append(UInt32(truncatingIfNeeded: slot))
        }
    }

    // MARK: Changing

    /// A new object of `entity`, registered in its entity's member list.
    mutating func create(_ entity: Entity) -> ObjectID {
        let slot: UInt32
        var record = ObjectRecord(entity: entity)
        record.sequence = nextSequence
        nextSequence += 1
        if let reused = freeSlots.popLast() {
            slot = reused
            records[Int(slot)] = record
        } else {
            slot = UInt32(truncatingIfNeeded: records.count)
            records.append(record)
            generations.append(1)
        }
        let id = handle(slot: Int(slot))
        if members.indices.contains(entity.index) {
            members[entity.index].append(id)
            liveCounts[entity.index] += 1
        }
        journal?.noteCreated(id)
        return id
    }

    /// A new object of `entity` with all its values at once (an object read back from a database):
    /// one record written, indexes updated once.
    mutating func create(_ entity: Entity, values: [AttributeValue?]) -> ObjectID {
        let id = create(entity)
        guard let slot = liveSlot(of: id), var record = records[slot] else { return id }
        records[slot] = nil
        if values.count == record.values.count {
            record.values = values
        } else {
            for index in record.values.indices where values.indices.contains(index) { record.values[index] = values[index] }
        }
        reindex(id, from: nil, to: record)
        records[slot] = record
        return id
    }

    /// Removes one object: its record, its identity-map entry and its slot (reused only after the
    /// transaction commits, so a rollback can put the object back under the same handle). Inverses
    /// are the caller's business (`ObjectStore+Delete.swift`).
    mutating func remove(_ id: ObjectID, identity: (map: Int, key: IdentityKey)?) {
        guard let slot = liveSlot(of: id), let current = records[slot] else { return }
        if let identity, lookup(map: identity.map, key: identity.key) == id {
            identityMaps[identity.map].set(nil, for: identity.key)
            journal?.identityChanges.append(.init(map: identity.map, key: identity.key, previous: id))
        }
        if journal?.isNew(id) == false, journal?.beforeImages[slot] == nil {
            journal?.beforeImages[slot] = current
        }
        reindex(id, from: current, to: nil)
        records[slot] = nil
        generations[slot] = Self.next(generations[slot])
        if liveCounts.indices.contains(current.entity) { liveCounts[current.entity] -= 1 }
        if journal != nil {
            journal?.noteDeleted(slot: slot, generation: id.generation)
        } else {
            free(slot: slot)
        }
    }

    /// The generation after `generation`; 0 (retired) after the last one, never a used one again.
    private static func next(_ generation: UInt16) -> UInt16 { generation == UInt16.max ? 0 : generation + 1 }

    /// Removes an identity-map entry if it names `id`.
    mutating func unregister(_ id: ObjectID, map: Int, key: IdentityKey) {
        guard identityMaps.indices.contains(map), identityMaps[map][key] == id else { return }
        identityMaps[map].set(nil, for: key)
        journal?.identityChanges.append(.init(map: map, key: key, previous: id))
    }

    /// Makes room in an identity map for `additional` more objects (an import knows how many
    /// representations a collection holds), so the map is not rehashed as it grows.
    mutating func reserve(map: Int, additional: Int) {
        guard identityMaps.indices.contains(map) else { return }
        identityMaps[map].reserve(additional: additional)
    }

    mutating func register(_ id: ObjectID, map: Int, key: IdentityKey) {
        guard identityMaps.indices.contains(map) else { return }
        let previous = identityMaps[map].set(id, for: key)
        if previous == nil, journal?.isNew(id) == true {
            // A new object under a free key: a rollback purges such entries wholesale, so the
            // journal keeps no copy of the key (a cold import would otherwise hold one per object).
            journal?.mapsWithNewEntries.insert(map)
        } else {
            journal?.identityChanges.append(.init(map: map, key: key, previous: previous))
        }
    }

    /// Applies `change` to a live object's record, first saving the record for rollback if a
    /// transaction is open. Does nothing for a handle that is not live.
    mutating func update(_ id: ObjectID, _ change: (inout ObjectRecord) -> Void) {
        guard let slot = liveSlot(of: id), records[slot] != nil else { return }
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
        // The record is taken out of its slot while it changes, so its values array stays uniquely
        // referenced and is changed in place; no closure holds the value (each capture of an
        // optional enum was a generic copy, the largest single cost of an import's attributes).
        guard let slot = liveSlot(of: id), var record = records[slot],
              record.values.indices.contains(attribute) else { return }
        if Self.same(record.values[attribute], value) { return }
        if journal?.isNew(id) == false, journal?.beforeImages[slot] == nil {
            journal?.beforeImages[slot] = record
        }
        records[slot] = nil
        if let key = indexKey(entity: record.entity, attribute: attribute) {
            if let old = record.values[attribute] { indexes[key]?.remove(old, id) }
            if let value { indexes[key]?.insert(value, id) }
        }
        record.values[attribute] = value
        records[slot] = record
    }

    /// `a == b` for optional values without the generic copies `Optional.==` makes of them.
    @inline(__always)
    private static func same(_ a: AttributeValue?, _ b: AttributeValue?) -> Bool {
        switch a {
        case .none:
            if case .none = b { return true }
            return false
        case .some(let left):
            switch b {
            case .none: return false
            case .some(let right): return left == right
            }
        }
    }

    // MARK: Transaction support

    /// Undoes the creation of an object in the transaction being rolled back.
    mutating func discardCreated(_ id: ObjectID) {
        guard let slot = liveSlot(of: id) else { return }
        reindex(id, from: records[slot], to: nil)
        records[slot] = nil
        generations[slot] = Self.next(generations[slot])
        free(slot: slot)
    }

    /// Undoes a deletion in the transaction being rolled back (the record itself comes back from
    /// the journal's before-images).
    mutating func undelete(slot: Int, generation: UInt16) {
        guard generations.indices.contains(slot) else { return }
        generations[slot] = generation
    }

    /// Makes the slots of objects deleted in a committed transaction reusable.
    mutating func release(slots: [Int]) {
        for slot in slots where generations.indices.contains(slot) { free(slot: slot) }
    }

    mutating func restore(slot: Int, to record: ObjectRecord?) {
        guard records.indices.contains(slot) else { return }
        let id = handle(slot: slot)
        reindex(id, from: records[slot], to: record)
        records[slot] = record
    }

    /// How many keys an identity map holds (live objects only, once a rollback has purged).
    func identityEntryCount(map: Int) -> Int { identityMaps.indices.contains(map) ? identityMaps[map].count : 0 }

    /// Removes the entries of an identity map whose object `isGone` says is gone (rollback).
    mutating func purgeIdentities(map: Int, where isGone: (ObjectID) -> Bool) {
        guard identityMaps.indices.contains(map) else { return }
        identityMaps[map].removeAll(where: isGone)
    }

    mutating func restoreIdentity(map: Int, key: IdentityKey, to previous: ObjectID?) {
        guard identityMaps.indices.contains(map) else { return }
        identityMaps[map].set(previous, for: key)
    }

    /// Puts the member lists and counts back as they were when a transaction began.
    mutating func restoreMembers(counts: [Int], liveCounts: [Int]) {
        for entity in members.indices where counts.indices.contains(entity) && members[entity].count > counts[entity] {
            members[entity].removeLast(members[entity].count - counts[entity])
        }
        self.liveCounts = liveCounts
    }

    /// Drops deleted objects from the member lists once they outnumber the live ones.
    mutating func compactMembers() {
        for entity in members.indices where liveCounts.indices.contains(entity) {
            if members[entity].count > 32 && members[entity].count > 2 * liveCounts[entity] {
                members[entity] = members[entity].filter { contains($0) }
            }
        }
    }
}
