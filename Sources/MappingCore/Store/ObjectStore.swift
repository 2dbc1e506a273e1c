import MappingArena

/// The in-memory graph, in columns: one `EntityTable` per entity holds its objects' values and
/// relationships by row; each slot (what a handle names) says which table and row its object lives
/// in. Strings live in one `StringArena`. Besides: one member list per entity (creation order) and
/// one identity map per identification. Every change goes through the methods here so that an
/// open transaction can record what to restore (see `ObjectStore+Transaction.swift`).
public struct ObjectStore {
    /// The store's tag and the slot number of its first slot in handles (see `HandleSpace`).
    package let space: HandleSpace
    var tag: UInt16 { space.tag }
    /// Per slot, the table (entity) and row of its object; `Place.empty` for a free slot.
    private var places: [Place] = []
    /// Changed only through the methods here (settable within the module for the invariant tests,
    /// which break it on purpose).
    var tables: [EntityTable]
    /// The graph's strings. A class shared by copies of the store: it only ever grows, so a copy
    /// never sees a string it holds change.
    package let arena: StringArena
    /// Per slot, the generation its live object's handles carry; 0 once the slot is retired.
    private var generations: [UInt16] = []
    private var freeSlots: [UInt32] = []
    private var retiredSlots = 0
    /// How many slots hold a fault: a row of the graph's database not read yet (`makeFault`).
    package private(set) var faultCount = 0
    /// The objects of each entity (exactly that entity, not sub-entities) in creation order. Deleted
    /// objects stay until the list is compacted, so readers skip handles that are no longer live.
    private var memberLists: [[ObjectID]]
    /// `memberLists`, for readers: a graph that holds only the rows read so far notes that the call
    /// reading it needs every row (`FaultLog`).
    var members: [[ObjectID]] {
        session.faultLog?.needsAll = true
        return memberLists
    }
    /// The objects of an entity the graph holds (`memberLists`), for a scan that has had the rows
    /// it needs read (`ObjectStore+Scan`).
    func membersHeld(_ entity: Int) -> [ObjectID] {
        memberLists.indices.contains(entity) ? memberLists[entity] : []
    }
    /// How many live objects each entity has (exactly that entity).
    private(set) var liveCounts: [Int]
    private(set) var identityMaps: [IdentityMap]
    /// Per entity, the attribute that alone identifies its objects (-1 when none or several): a
    /// string identity is filed under the bytes this column holds.
    private let identityColumns: [Int]
    /// Indexes of `indexed` attributes, by (hierarchy root, attribute); `indexKeys[entity]` lists the
    /// attribute → index key pairs that apply to an entity.
    private(set) var indexes: [IndexKey: AttributeIndex] = [:]
    let indexKeys: [[Int: IndexKey]]
    private var nextSequence = 0
    var journal: Journal?
    /// The open transaction's journal while rows are read into the graph outside it
    /// (`ObjectStore.reading`): the faults they make are noted there as not new.
    var readingFor: Journal?
    /// What the context's session has asked of the graph: transactions across calls, observers,
    /// the database commits are written to (`StoreSession`).
    package var session = StoreSession()

    /// A store that is never read or changed, only swapped with the real one (the importer holds it
    /// while it has the real one out): no tables, no arena of its own.
    package static var placeholder: ObjectStore { ObjectStore() }

    private static let placeholderArena = StringArena()

    private init() {
        space = .placeholder
        tables = []
        arena = Self.placeholderArena
        memberLists = []
        liveCounts = []
        identityMaps = []
        identityColumns = []
        indexKeys = []
    }

    package init(model: Model, space: HandleSpace) {
        self.space = space
        arena = StringArena()
        tables = model.entities.map { EntityTable($0) }
        memberLists = Array(repeating: [], count: model.entities.count)
        liveCounts = Array(repeating: 0, count: model.entities.count)
        identityMaps = Array(repeating: IdentityMap(), count: model.identityMapCount)
        identityColumns = model.entities.map { $0.identification.count == 1 ? $0.identification.first ?? -1 : -1 }
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
        session.faultBatches = FaultBatches(base: space.firstSlot)
    }

    struct IndexKey: Hashable {
        let entity: Int
        let attribute: Int
    }

    /// The index of an attribute of an entity, if it is indexed.
    @inline(__always) func indexKey(entity: Int, attribute: Int) -> IndexKey? {
        // Most entities have no index: skip the dictionary (a SipHash per value set) for them.
        guard indexKeys.indices.contains(entity), !indexKeys[entity].isEmpty else { return nil }
        return indexKeys[entity][attribute]
    }

    func index(_ key: IndexKey) -> AttributeIndex? {
        // Like the member lists, an index holds only the rows read so far.
        session.faultLog?.needsAll = true
        return indexes[key]
    }

    /// Sorts the indexes that changed since their last range query (once per batch of changes).
    package mutating func prepareIndexes() {
        for key in indexes.keys { indexes[key]?.prepareRanges() }
    }

    /// Files (or unfiles, `adding: false`) an object's indexed values in their indexes.
    private mutating func index(_ id: ObjectID, at place: Place, adding: Bool) {
        let entity = Int(place.entity)
        guard indexKeys.indices.contains(entity), !indexKeys[entity].isEmpty, tables.indices.contains(entity) else { return }
        for (attribute, key) in indexKeys[entity] {
            guard let value = tables[entity].value(attribute, row: place.row, arena: arena) else { continue }
            if adding { indexes[key]?.insert(value, id) } else { indexes[key]?.remove(value, id) }
        }
    }

    // MARK: Reading

    /// Where an object lives: its entity's table and its row there.
    struct Place {
        var entity: Int32
        var rowNumber: UInt32
        var row: Int { Int(rowNumber) }

        static let empty = Place(entity: -1, rowNumber: 0)
        var isEmpty: Bool { entity < 0 }
        /// A fault's place: the entity its row was linked as (the row may be of a sub-entity), no row.
        static func fault(_ entity: Int) -> Place { Place(entity: Int32(truncatingIfNeeded: entity), rowNumber: .max) }
        var isFault: Bool { entity >= 0 && rowNumber == .max }
    }

    /// The slot of a handle of this store that has not gone stale; `nil` for a stale, foreign or
    /// malformed handle. Every read and change by handle goes through this one check.
    @inline(__always) func liveSlot(of id: ObjectID) -> Int? {
        Self.liveSlot(of: id, space, places, generations)
    }

    @inline(__always) static func liveSlot(of id: ObjectID, _ space: HandleSpace, _ places: [Place], _ generations: [UInt16]) -> Int? {
        let slot = id.slot - space.firstSlot
        guard id.tag == space.tag, places.indices.contains(slot), generations[slot] == id.generation,
              !places[slot].isEmpty else { return nil }
        return slot
    }

    /// What a commit's rows read (`StoreCommit.Graph`): the arrays are shared with the store's.
    func commitGraph() -> StoreCommit.Graph {
        StoreCommit.Graph(tables: tables, arena: arena, space: space, places: places, generations: generations)
    }

    /// The slot and place of a live object; `nil` for a stale, foreign or malformed handle.
    @inline(__always) func located(_ id: ObjectID) -> (slot: Int, place: Place)? {
        guard let slot = liveSlot(of: id) else { return nil }
        let place = places[slot]
        if place.isFault {
            // A call on part of the graph met a row not read yet: it is run again once it is read.
            session.faultLog?.faults.insert(id)
            return nil
        }
        guard tables.indices.contains(Int(place.entity)) else { return nil }
        session.cache?.touch(slot)
        return (slot, place)
    }

    /// The place of a live object; `nil` for a fault and for a stale, foreign or malformed handle.
    @inline(__always) func place(of id: ObjectID) -> Place? { located(id)?.place }

    /// A copy of a live object's values and relationships (for a transaction's before-image, a
    /// change set, a commit to a database); `nil` for a handle not live. Reads on hot paths use
    /// the accessors below, which copy nothing.
    func record(_ id: ObjectID) -> ObjectRecord? {
        guard let place = place(of: id) else { return nil }
        return record(at: place)
    }

    private func record(at place: Place) -> ObjectRecord {
        let table = tables[Int(place.entity)]
        let values = self.values(of: table, row: place.row)
        var links: [Links] = []
        links.reserveCapacity(table.links.count)
        for relationship in table.links.indices { links.append(table.links(relationship, row: place.row) ?? .one(nil)) }
        return ObjectRecord(entity: Int(place.entity), sequence: table.sequence(place.row), values: values, links: links)
    }

    /// Every attribute value of one row of a table, copied out of its columns.
    private func values(of table: EntityTable, row: Int) -> [AttributeValue?] {
        var values: [AttributeValue?] = []
        values.reserveCapacity(table.columns.count)
        for attribute in table.columns.indices { values.append(table.value(attribute, row: row, arena: arena)) }
        return values
    }

    /// The names of the attributes and relationships of a live object whose values differ from
    /// `before` (its before-image), read in place (no record is made): a value as `holds`
    /// compares it (text by its bytes, as it is stored and written), each relationship's targets
    /// as they were live then (`liveBefore`) and are now.
    func changedNames(of id: ObjectID, since before: ObjectRecord, _ entity: Entity, liveBefore: LiveBefore) -> [String] {
        guard let place = place(of: id) else { return [] }
        let table = tables[Int(place.entity)]
        var names: [String] = []
        for (index, attribute) in entity.attributes.enumerated()
        where before.values.indices.contains(index) && index < table.columns.count
            && !table.holds(before.values[index], index, row: place.row, arena: arena) {
            names.append(attribute.name)
        }
        for (index, relationship) in entity.relationships.enumerated() where before.links.indices.contains(index) {
            if !sameTargets(before.links[index], liveBefore, table.links(index, row: place.row) ?? .one(nil)) {
                names.append(relationship.name)
            }
        }
        return names
    }

    /// The objects live when a transaction began: those live now that it did not make, and those
    /// it deleted that it had not made. A value, not a closure: a closure calling `contains` would
    /// capture a copy of the store, made again for every object a commit compares.
    struct LiveBefore {
        let deletedHere: Set<ObjectID>
        let journal: Journal
    }

    private func wasLive(_ id: ObjectID, _ before: LiveBefore) -> Bool {
        before.deletedHere.contains(id) || (contains(id) && !before.journal.isNew(id))
    }

    /// Whether two values of a relationship hold the same targets in order: those of `before`
    /// that `liveBefore` keeps, and the live ones of `now`. No array is made (a commit asks this
    /// of every relationship of every object it changed), and the graph is asked directly, not
    /// through a method reference, which would copy it per call.
    private func sameTargets(_ before: Links, _ liveBefore: LiveBefore, _ now: Links) -> Bool {
        switch (before, now) {
        case (.one(let x), .one(let y)):
            // Unwrapped by hand: a closure calling `contains` would capture a copy of the store.
            var was: ObjectID?
            if let x, wasLive(x, liveBefore) { was = x }
            var now: ObjectID?
            if let y, contains(y) { now = y }
            return was == now
        case (.unread, .unread):
            return true
        default:
            let left = before.targetSequence, right = now.targetSequence
            var i = left.startIndex, j = right.startIndex
            while true {
                while i < left.endIndex && !wasLive(left[i], liveBefore) { i += 1 }
                while j < right.endIndex && !contains(right[j]) { j += 1 }
                guard i < left.endIndex, j < right.endIndex else { return i == left.endIndex && j == right.endIndex }
                if left[i] != right[j] { return false }
                i += 1
                j += 1
            }
        }
    }

    /// The entity of a live object.
    @inline(__always) func entityIndex(of id: ObjectID) -> Int? {
        place(of: id).map { Int($0.entity) }
    }

    /// Whether a handle names a live object, read or still a fault.
    package func contains(_ id: ObjectID) -> Bool { liveSlot(of: id) != nil }

    /// One attribute of a live object; `nil` when unset or for a handle not live.
    func attributeValue(of id: ObjectID, _ attribute: Int) -> AttributeValue? {
        guard let place = place(of: id) else { return nil }
        return tables[Int(place.entity)].value(attribute, row: place.row, arena: arena)
    }

    /// Whether a live object's attribute holds `value` (nil: is null), compared in place.
    func holds(_ value: AttributeValue?, of id: ObjectID, _ attribute: Int) -> Bool {
        guard let place = place(of: id) else { return false }
        return tables[Int(place.entity)].holds(value, attribute, row: place.row, arena: arena)
    }

    /// A string attribute's stored bytes, for reading in place (`StringArena.cString`).
    func stringRef(of id: ObjectID, _ attribute: Int) -> StringArena.Ref? {
        guard let place = place(of: id) else { return nil }
        return tables[Int(place.entity)].stringRef(attribute, row: place.row)
    }

    /// One relationship of a live object. A to-many not read from the store yet reads as empty,
    /// and the call reading it is noted as needing it (`ObjectStore+Lists`).
    @inline(__always) func links(of id: ObjectID, _ relationship: Int) -> Links? {
        guard let place = place(of: id) else { return nil }
        let links = tables[Int(place.entity)].links(relationship, row: place.row)
        if case .unread = links {
            session.faultLog?.lists.insert(ListFault(owner: id, relationship: relationship))
            return .many(LinkList())
        }
        return links
    }

    /// Whether a live object's to-many has not been read from its store yet (nothing is noted).
    func listIsUnread(_ id: ObjectID, _ relationship: Int) -> Bool {
        guard let slot = liveSlot(of: id), !places[slot].isFault, tables.indices.contains(Int(places[slot].entity)) else { return false }
        return tables[Int(places[slot].entity)].isUnread(relationship, row: places[slot].row)
    }

    /// Sets a to-many of a live object as read from the store, or as unread (no journal: rows are
    /// read only between transactions).
    mutating func setStoredLinks(_ value: Links, of id: ObjectID, relationship: Int) {
        guard let slot = liveSlot(of: id), !places[slot].isFault, tables.indices.contains(Int(places[slot].entity)) else { return }
        tables[Int(places[slot].entity)].setLinks(value, relationship, row: places[slot].row)
    }

    /// The live targets of one relationship of a live object, in order.
    func targets(of id: ObjectID, _ relationship: Int) -> [ObjectID] {
        guard let all = links(of: id, relationship)?.targets else { return [] }
        var live: [ObjectID] = []
        live.reserveCapacity(all.count)
        for target in all where contains(target) { live.append(target) }  // `filter(contains)` would copy the store
        return live
    }

    /// Creation order across the store (results found through an index keep it).
    func sequence(of id: ObjectID) -> Int {
        guard let place = place(of: id) else { return 0 }
        return tables[Int(place.entity)].sequence(place.row)
    }

    /// The identity map and key of a live object, read from its columns; `nil` when its entity has
    /// no identification or one of its identification values is null.
    package func identity(of id: ObjectID, _ entity: Entity) -> (map: Int, key: IdentityKey)? {
        guard let map = entity.identityMap, let place = place(of: id) else { return nil }
        let table = tables[Int(place.entity)]
        if entity.identification.count == 1, let attribute = entity.identification.first {
            return table.value(attribute, row: place.row, arena: arena).map { (map, .single($0)) }
        }
        var values: [AttributeValue] = []
        for attribute in entity.identification {
            guard let value = table.value(attribute, row: place.row, arena: arena) else { return nil }
            values.append(value)
        }
        return (map, IdentityKey(values))
    }

    /// The handle of the live object in `slot`, if there is one (not a fault).
    func liveID(slot: Int) -> ObjectID? {
        guard places.indices.contains(slot), !places[slot].isEmpty, !places[slot].isFault else { return nil }
        return handle(slot: slot)
    }

    @inline(__always) package func lookup(map: Int, key: IdentityKey) -> ObjectID? {
        guard identityMaps.indices.contains(map) else { return nil }
        let found = identityMaps[map].object(for: key, arena: arena)
        // Not in the graph may still be in the database, unless the call knows it is not (or the
        // graph knows every identity its store holds).
        if found == nil, let log = session.faultLog, !session.identitiesComplete { log.noteMissing(map: map, key: key) }
        return found
    }

    /// The object filed under a single string key given as bytes, if the graph holds one; unlike
    /// `lookup`, a miss is not noted for the store (the caller looks again through `lookup`).
    @inline(__always) func lookup(map: Int, bytes: UnsafeRawBufferPointer) -> ObjectID? {
        guard identityMaps.indices.contains(map) else { return nil }
        return identityMaps[map].object(forBytes: bytes, arena: arena)
    }

    package var objectCount: Int { places.count - freeSlots.count - retiredSlots }

    /// How many slot numbers the store has used, for `HandleSpace.release`.
    package var slotsUsed: Int { places.count }

    /// The handle of `slot` as it is now. Slot numbers in handles start at the store's first slot;
    /// a store never reaches 2^31 slots (its objects alone would not fit in memory), so the sum
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

    /// A slot for a new object: a free one, or a new one with its first generation.
    private mutating func takeSlot() -> Int {
        if let reused = freeSlots.popLast() { return Int(reused) }
        places.append(.empty)
        generations.append(1)
        return places.count - 1
    }

    /// A new object of `entity`, registered in its entity's member list.
    mutating func create(_ entity: Entity) -> ObjectID {
        let slot = takeSlot()
        if tables.indices.contains(entity.index) {
            let row = tables[entity.index].addRow(slot: slot, sequence: nextSequence)
            places[slot] = Place(entity: Int32(truncatingIfNeeded: entity.index), rowNumber: UInt32(truncatingIfNeeded: row))
        }
        nextSequence += 1
        let id = handle(slot: slot)
        session.cache?.enqueue(id, slot: slot)
        if memberLists.indices.contains(entity.index) {
            memberLists[entity.index].append(id)
            liveCounts[entity.index] += 1
        }
        journal?.noteCreated(id)
        return id
    }

    /// A new object of `entity` with all its values at once (an object read back from a database):
    /// one row written, indexes updated once.
    package mutating func create(_ entity: Entity, values: [AttributeValue?]) -> ObjectID {
        let id = create(entity)
        guard let place = place(of: id) else { return id }
        for (attribute, value) in values.enumerated() where value != nil {
            tables[entity.index].setValue(value, attribute, row: place.row, arena: arena)
        }
        index(id, at: place, adding: true)
        return id
    }

    // MARK: Faults

    /// A handle for a row of the graph's database not read yet, linked as an `entity` (the row
    /// may turn out to be of a sub-entity). Not a change: an open transaction notes it as read,
    /// not made, and it is in no member list until it is read.
    mutating func makeFault(_ entity: Int) -> ObjectID {
        let slot = takeSlot()
        places[slot] = .fault(entity)
        faultCount += 1
        let id = handle(slot: slot)
        (journal ?? readingFor)?.noteRead(id)
        return id
    }

    /// Whether `id` names an object the open transaction deleted: a row read meanwhile (it is
    /// still in the database until the commit) must not bring it back, nor a link to it.
    func deletedInTransaction(_ id: ObjectID) -> Bool {
        guard let open = journal ?? readingFor, id.tag == space.tag else { return false }
        return open.deletedHere(slot: id.slot - space.firstSlot, generation: id.generation)
    }

    /// The entity a live fault was linked as; nil for an object already read, and for a handle
    /// not live.
    func faultEntity(_ id: ObjectID) -> Int? {
        guard let slot = liveSlot(of: id), places[slot].isFault else { return nil }
        return Int(places[slot].entity)
    }

    /// The handle of the fault in `slot`, if it holds one.
    func faultID(slot: Int) -> ObjectID? {
        guard places.indices.contains(slot), places[slot].isFault else { return nil }
        return handle(slot: slot)
    }

    /// Turns a fault into an object of `entity` with the values its row holds, in creation order
    /// `sequence` (its key's order). Its identity and links are the caller's.
    mutating func fill(_ id: ObjectID, as entity: Entity, values: [AttributeValue?], sequence: Int) {
        guard let slot = liveSlot(of: id), places[slot].isFault, tables.indices.contains(entity.index) else { return }
        let row = tables[entity.index].addRow(slot: slot, sequence: sequence)
        let place = Place(entity: Int32(truncatingIfNeeded: entity.index), rowNumber: UInt32(truncatingIfNeeded: row))
        places[slot] = place
        faultCount -= 1
        session.cache?.enqueue(id, slot: slot)
        if memberLists.indices.contains(entity.index) {
            memberLists[entity.index].append(id)
            liveCounts[entity.index] += 1
        }
        for (attribute, value) in values.enumerated() where value != nil {
            tables[entity.index].setValue(value, attribute, row: place.row, arena: arena)
        }
        index(id, at: place, adding: true)
    }

    /// Makes a fault's handle stale for good: its row is not in the database (a link to a row that
    /// is gone, in a store changed outside libmapping), so it is dropped as such links are.
    mutating func dropFault(_ id: ObjectID) {
        guard let slot = liveSlot(of: id), places[slot].isFault else { return }
        places[slot] = .empty
        faultCount -= 1
        generations[slot] = Self.next(generations[slot])
        free(slot: slot)
    }

    /// Turns an object whose row the database holds as the graph does back into a fault: its
    /// values, relationships, index entries and (unless the graph's identities are complete) its
    /// identity-map entry go, its handle stays and reads the row again when touched
    /// (`ObjectCache`). Never inside a transaction. Its strings
    /// stay in the arena: a C caller may hold them. The caller drops it from the member lists
    /// (`dropEvicted`), many at once.
    mutating func evict(_ id: ObjectID, model: Model) {
        guard journal == nil, let slot = liveSlot(of: id), !places[slot].isFault else { return }
        let place = places[slot]
        let entity = Int(place.entity)
        guard model.entities.indices.contains(entity), tables.indices.contains(entity) else { return }
        // A graph whose identity maps are complete keeps the entry, under the fault.
        if !session.identitiesComplete, let identity = identity(of: id, model.entities[entity]) {
            unregister(id, map: identity.map, key: identity.key)
        }
        index(id, at: place, adding: false)
        tables[entity].removeRow(place.row)
        places[slot] = .fault(entity)
        faultCount += 1
        if liveCounts.indices.contains(entity) { liveCounts[entity] -= 1 }
        _ = session.cache?.takeUse(slot)  // read again, it starts unused
    }

    /// The entity of an object read (not a fault), without noting a use (the cache's own walk).
    func readEntity(_ id: ObjectID) -> Int? {
        guard let slot = liveSlot(of: id), !places[slot].isFault else { return nil }
        return Int(places[slot].entity)
    }

    /// Drops the objects evicted since from the member lists of `entities`, which hold only the
    /// objects read (a list is walked once for many evictions).
    mutating func dropEvicted(from entities: Set<Int>) {
        for entity in entities where memberLists.indices.contains(entity) {
            let kept = memberLists[entity].filter { id in liveSlot(of: id).map { !places[$0].isFault } ?? false }
            memberLists[entity] = kept
        }
    }

    /// How many objects the graph holds read (not faults).
    package var readCount: Int { objectCount - faultCount }

    /// Creation order for the objects a store-backed graph makes itself: after every row's (rows
    /// are ordered by their keys, which stay below 2^62).
    package mutating func orderNewObjectsAfterRows() { nextSequence = max(nextSequence, 1 << 62) }

    /// Puts each member list in creation order (a store-backed graph reads rows in the order it is
    /// asked for them).
    mutating func sortMembers() {
        for entity in memberLists.indices {
            let order = memberLists[entity].map { sequence(of: $0) }
            // Rows read all at once come in order: most lists need no sort.
            guard zip(order, order.dropFirst()).contains(where: { $0 > $1 }) else { continue }
            let sorted = zip(memberLists[entity], order).sorted { $0.1 < $1.1 }.map(\.0)
            memberLists[entity] = sorted
        }
    }

    /// Removes one object: its row, its identity-map entry and its slot (reused only after the
    /// transaction commits, so a rollback can put the object back under the same handle). Inverses
    /// are the caller's business (`ObjectStore+Delete.swift`).
    mutating func remove(_ id: ObjectID, identity: (map: Int, key: IdentityKey)?) {
        guard let (slot, place) = located(id) else { return }
        if let identity, lookup(map: identity.map, key: identity.key) == id {
            identityMaps[identity.map].set(nil, for: identity.key, arena: arena)
            journal?.identityChanges.append(.init(map: identity.map, key: identity.key, previous: id))
        }
        saveBeforeImage(id, slot: slot, place: place)
        index(id, at: place, adding: false)
        tables[Int(place.entity)].removeRow(place.row)
        places[slot] = .empty
        generations[slot] = Self.next(generations[slot])
        if liveCounts.indices.contains(Int(place.entity)) { liveCounts[Int(place.entity)] -= 1 }
        if journal != nil {
            journal?.noteDeleted(slot: slot, generation: id.generation)
        } else {
            free(slot: slot)
        }
    }

    /// Keeps a copy of an object as it was before the open transaction first changes it; objects
    /// the transaction made need none (a rollback discards them).
    @inline(__always)
    private mutating func saveBeforeImage(_ id: ObjectID, slot: Int, place: Place) {
        if let journal, journal.needsImage(id, slot: slot) {
            journal.beforeImages[slot] = record(at: place)
        }
    }

    /// The generation after `generation`; 0 (retired) after the last one, never a used one again.
    private static func next(_ generation: UInt16) -> UInt16 { generation == UInt16.max ? 0 : generation + 1 }

    /// Removes an identity-map entry if it names `id`.
    mutating func unregister(_ id: ObjectID, map: Int, key: IdentityKey) {
        guard identityMaps.indices.contains(map), lookup(map: map, key: key) == id else { return }
        identityMaps[map].set(nil, for: key, arena: arena)
        journal?.identityChanges.append(.init(map: map, key: key, previous: id))
    }

    /// Makes room in an identity map for `additional` more objects (an import knows how many
    /// representations a collection holds), so the map is not rehashed as it grows.
    package mutating func reserve(for entity: Entity, additional: Int) {
        guard let map = entity.identityMap, identityMaps.indices.contains(map) else { return }
        let single = entity.identification.count == 1 ? entity.identification.first : nil
        let type = single.flatMap { entity.attributes.indices.contains($0) ? entity.attributes[$0].type : nil }
        identityMaps[map].reserve(additional: additional, keyedBy: type, arena: arena)
    }

    package mutating func register(_ id: ObjectID, map: Int, key: IdentityKey) {
        guard identityMaps.indices.contains(map) else { return }
        let stored: StringArena.Ref?
        if case .single(.string) = key { stored = identityBytes(of: id) } else { stored = nil }
        let previous = identityMaps[map].set(id, for: key, arena: arena, stored: stored)
        if previous == nil, journal?.isNew(id) == true {
            // A new object under a free key: a rollback purges such entries wholesale, so the
            // journal keeps no copy of the key (a cold import would otherwise hold one per object).
            journal?.noteNewEntry(map: map)
        } else {
            journal?.identityChanges.append(.init(map: map, key: key, previous: previous))
        }
    }

    mutating func setValue(_ value: AttributeValue?, of id: ObjectID, attribute: Int) {
        guard let (slot, place) = located(id) else { return }
        let entity = Int(place.entity)
        if tables[entity].holds(value, attribute, row: place.row, arena: arena) { return }
        saveBeforeImage(id, slot: slot, place: place)
        if let key = indexKey(entity: entity, attribute: attribute) {
            if let old = tables[entity].value(attribute, row: place.row, arena: arena) { indexes[key]?.remove(old, id) }
            if let value { indexes[key]?.insert(value, id) }
        }
        tables[entity].setValue(value, attribute, row: place.row, arena: arena)
    }

    /// Sets a string attribute from bytes the parser holds (the importer's path), storing them in
    /// the arena without making a `String` first. An object that needs a before-image or an
    /// indexed attribute goes through `setValue`, which needs the value as a `String` anyway.
    mutating func setString(_ bytes: UnsafeRawBufferPointer, of id: ObjectID, attribute: Int) {
        guard let place = place(of: id) else { return }
        let entity = Int(place.entity)
        // An object the transaction did not make may need a before-image: `setValue` decides that,
        // only once the value is known to differ (re-imports mostly bring equal values).
        let inPlace = journal?.isNew(id) != false && indexKey(entity: entity, attribute: attribute) == nil
        // One mutating call compares and (when it may) writes: a read first would copy the table.
        switch tables[entity].updateString(bytes, attribute, row: place.row, arena: arena, write: inPlace) {
        case .unchanged, .written: return
        case .differs: setValue(.string(String(decoding: bytes, as: UTF8.self)), of: id, attribute: attribute)
        }
    }

    /// Sets a to-one relationship of a live object (nothing else: inverses are the caller's).
    mutating func setLink(_ target: ObjectID?, of id: ObjectID, relationship: Int) {
        guard let (slot, place) = located(id) else { return }
        saveBeforeImage(id, slot: slot, place: place)
        tables[Int(place.entity)].setOne(target, relationship, row: place.row)
    }

    /// Changes a to-many relationship of a live object in place (inverses are the caller's).
    mutating func modifyLinks(of id: ObjectID, relationship: Int, _ change: (inout LinkList) -> Void) {
        guard let (slot, place) = located(id) else { return }
        saveBeforeImage(id, slot: slot, place: place)
        tables[Int(place.entity)].modifyList(relationship, row: place.row, change)
    }

    // MARK: Transaction support

    /// Undoes the creation of an object in the transaction being rolled back.
    /// An object created and then deleted in the transaction has its generation back (`undelete`)
    /// but no row: its slot is freed all the same.
    mutating func discardCreated(_ id: ObjectID) {
        let slot = id.slot - space.firstSlot
        guard id.tag == space.tag, places.indices.contains(slot), generations[slot] == id.generation else { return }
        let place = places[slot]
        if !place.isEmpty, tables.indices.contains(Int(place.entity)) {
            index(id, at: place, adding: false)
            tables[Int(place.entity)].removeRow(place.row)
            places[slot] = .empty
        }
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

    /// Puts an object back as its before-image says: in its row if it still has one, else (it was
    /// deleted in the transaction) in a new row of its table.
    mutating func restore(slot: Int, to record: ObjectRecord) {
        guard places.indices.contains(slot), tables.indices.contains(record.entity) else { return }
        let id = handle(slot: slot)
        var place = places[slot]
        if !place.isEmpty, Int(place.entity) != record.entity {
            index(id, at: place, adding: false)
            tables[Int(place.entity)].removeRow(place.row)
            place = .empty
        }
        if place.isEmpty {
            let row = tables[record.entity].addRow(slot: slot, sequence: record.sequence)
            place = Place(entity: Int32(truncatingIfNeeded: record.entity), rowNumber: UInt32(truncatingIfNeeded: row))
            places[slot] = place
        } else {
            index(id, at: place, adding: false)
            tables[record.entity].setSequence(record.sequence, row: place.row)
        }
        // Values the row still holds are left alone: rewriting them would store their strings again.
        tables[record.entity].write(values: record.values, links: record.links, row: place.row, arena: arena)
        index(id, at: place, adding: true)
    }

    /// How many keys an identity map holds (live objects only, once a rollback has purged).
    package func identityEntryCount(map: Int) -> Int { identityMaps.indices.contains(map) ? identityMaps[map].count : 0 }

    /// Removes the entries of an identity map whose object `isGone` says is gone (rollback).
    mutating func purgeIdentities(map: Int, where isGone: (ObjectID) -> Bool) {
        guard identityMaps.indices.contains(map) else { return }
        identityMaps[map].removeAll(where: isGone, arena: arena)
    }

    mutating func restoreIdentity(map: Int, key: IdentityKey, to previous: ObjectID?) {
        guard identityMaps.indices.contains(map) else { return }
        let stored: StringArena.Ref?
        if case .single(.string) = key, let previous { stored = identityBytes(of: previous) } else { stored = nil }
        identityMaps[map].set(previous, for: key, arena: arena, stored: stored)
    }

    /// The bytes of a read object's single string identification, as its column holds them (the
    /// identity map files the key under them when they are the key's: `IdentityMap.set`).
    private mutating func identityBytes(of id: ObjectID) -> StringArena.Ref? {
        guard let slot = liveSlot(of: id), !places[slot].isFault else { return nil }
        let entity = Int(places[slot].entity)
        guard identityColumns.indices.contains(entity), identityColumns[entity] >= 0, tables.indices.contains(entity) else { return nil }
        return tables[entity].stringRefInPlace(identityColumns[entity], row: places[slot].row)
    }

    /// The length of each member list (a transaction's starting point).
    var memberCounts: [Int] { memberLists.map(\.count) }

    /// Puts the member lists and counts back as they were when a transaction began, but for the
    /// objects rows read meanwhile, which stay (`keepingReads`): the lists then lose just the
    /// objects no longer live, but those `deletedAround` says the transaction around a savepoint
    /// deleted (its own rollback brings them back, and a deleted object stays listed until then).
    mutating func restoreMembers(counts: [Int], liveCounts: [Int], keepingReads: Bool, deletedAround: (ObjectID) -> Bool) {
        if keepingReads {
            for entity in memberLists.indices {
                memberLists[entity] = memberLists[entity].filter { contains($0) || deletedAround($0) }
                if self.liveCounts.indices.contains(entity) { self.liveCounts[entity] = memberLists[entity].count(where: contains) }
            }
            return
        }
        for entity in memberLists.indices where counts.indices.contains(entity) && memberLists[entity].count > counts[entity] {
            memberLists[entity].removeLast(memberLists[entity].count - counts[entity])
        }
        self.liveCounts = liveCounts
    }

    /// Drops deleted objects from the member lists once they outnumber the live ones.
    mutating func compactMembers() {
        for entity in memberLists.indices where liveCounts.indices.contains(entity) {
            if memberLists[entity].count > 32 && memberLists[entity].count > 2 * liveCounts[entity] {
                memberLists[entity] = memberLists[entity].filter { contains($0) }
            }
        }
    }
}
