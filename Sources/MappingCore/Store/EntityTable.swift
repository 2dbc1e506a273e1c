import MappingArena

/// The objects of one entity (exactly that entity, not its sub-entities) as columns: one `Column`
/// per attribute, one `LinkColumn` per relationship, and per row the slot of the object that owns
/// it and its creation sequence. Rows of deleted objects are reused; an object's handle names its
/// slot, never its row, so rows can be reused freely.
struct EntityTable {
    private(set) var columns: [Column]
    private(set) var links: [LinkColumn]
    private(set) var slots: [UInt32] = []
    private(set) var sequences: [Int] = []
    private var freeRows: [Int] = []
    /// How many rows every column and link column holds: at least `slots.count`, grown in steps so
    /// that a new row is not an append to each of them (HotPath.md, rule 12).
    private var preparedRows = 0

    init(_ entity: Entity) {
        columns = entity.attributes.map { Column(type: $0.type) }
        links = entity.relationships.map { LinkColumn(toMany: $0.toMany) }
    }

    /// A row for a new object, every value null and every relationship empty.
    mutating func addRow(slot: Int, sequence: Int) -> Int {
        if let row = freeRows.popLast() {
            slots[row] = UInt32(truncatingIfNeeded: slot)
            sequences[row] = sequence
            return row
        }
        if slots.count >= preparedRows { prepareRows() }
        slots.append(UInt32(truncatingIfNeeded: slot))
        sequences.append(sequence)
        return slots.count - 1
    }

    /// Appends null rows to every column and link column: an eighth more than the table holds (at
    /// least 64), so the rows prepared but unused stay a small share of its memory.
    private mutating func prepareRows() {
        let added = max(64, preparedRows / 8)
        slots.reserveCapacity(preparedRows + added)
        sequences.reserveCapacity(preparedRows + added)
        for index in columns.indices { columns[index].appendRows(added) }
        for index in links.indices { links[index].appendRows(added) }
        preparedRows += added
    }

    /// Empties a row and makes it reusable.
    mutating func removeRow(_ row: Int) {
        guard slots.indices.contains(row) else { return }
        for index in columns.indices { columns[index].clear(row) }
        for index in links.indices { links[index].clear(row) }
        slots[row] = UInt32.max
        freeRows.append(row)
    }

    @inline(__always)
    func sequence(_ row: Int) -> Int { sequences.indices.contains(row) ? sequences[row] : 0 }

    mutating func setSequence(_ sequence: Int, row: Int) {
        if sequences.indices.contains(row) { sequences[row] = sequence }
    }

    @inline(__always)
    func value(_ attribute: Int, row: Int, arena: StringArena) -> AttributeValue? {
        columns.indices.contains(attribute) ? columns[attribute].value(at: row, arena: arena) : nil
    }

    @inline(__always)
    func holds(_ value: AttributeValue?, _ attribute: Int, row: Int, arena: StringArena) -> Bool {
        columns.indices.contains(attribute) && columns[attribute].holds(value, at: row, arena: arena)
    }

    @inline(__always)
    func stringRef(_ attribute: Int, row: Int) -> StringArena.Ref? {
        columns.indices.contains(attribute) ? columns[attribute].stringRef(at: row) : nil
    }

    /// `stringRef` for a caller that holds the graph mutably: mutating (it only reads) so that the
    /// table and column are read in place, not copied out of their arrays (rule 3 of `HotPath.md`).
    mutating func stringRefInPlace(_ attribute: Int, row: Int) -> StringArena.Ref? {
        columns.indices.contains(attribute) ? columns[attribute].stringRefInPlace(at: row) : nil
    }

    /// Compares a string row with `bytes` and, when they differ and `write` allows, stores them.
    mutating func updateString(_ bytes: UnsafeRawBufferPointer, _ attribute: Int, row: Int, arena: StringArena,
                               write: Bool) -> Column.StringUpdate {
        guard columns.indices.contains(attribute) else { return .differs }
        return columns[attribute].updateString(bytes, at: row, arena: arena, write: write)
    }

    mutating func setValue(_ value: AttributeValue?, _ attribute: Int, row: Int, arena: StringArena) {
        if columns.indices.contains(attribute) { columns[attribute].set(value, at: row, arena: arena) }
    }

    @inline(__always)
    func links(_ relationship: Int, row: Int) -> Links? {
        links.indices.contains(relationship) ? links[relationship].value(at: row) : nil
    }

    mutating func setOne(_ target: ObjectID?, _ relationship: Int, row: Int) {
        if links.indices.contains(relationship) { links[relationship].setOne(target, at: row) }
    }

    /// Sets one relationship of a row (a list read from the store, or left unread).
    mutating func setLinks(_ value: Links, _ relationship: Int, row: Int) {
        if links.indices.contains(relationship) { links[relationship].set(value, at: row) }
    }

    /// Whether a row's to-many has not been read from the store yet.
    @inline(__always)
    func isUnread(_ relationship: Int, row: Int) -> Bool {
        links.indices.contains(relationship) && links[relationship].isUnread(row)
    }

    /// Changes a to-many list in place (it stays uniquely referenced, so appending does not copy it).
    mutating func modifyList(_ relationship: Int, row: Int, _ change: (inout LinkList) -> Void) {
        if links.indices.contains(relationship) { links[relationship].modifyList(at: row, change) }
    }

    /// Every value and relationship of a row at once (a rollback's restore). Values the row already
    /// holds are not written again (a string would be stored anew).
    mutating func write(values: [AttributeValue?], links written: [Links], row: Int, arena: StringArena) {
        for (attribute, value) in values.enumerated() where !holds(value, attribute, row: row, arena: arena) {
            setValue(value, attribute, row: row, arena: arena)
        }
        for (relationship, value) in written.enumerated() where links.indices.contains(relationship) {
            links[relationship].set(value, at: row)
        }
    }

}

/// One relationship of one entity for every row: a to-one as a handle per row (raw 0, never a valid
/// handle, for none), a to-many as a `LinkList` per row. A store-backed graph may leave a row's
/// to-many unread (`ObjectStore+Lists`): `unread` says so per row, and stays empty (no cost) in a
/// graph that never does.
struct LinkColumn {
    let toMany: Bool
    private var ones: [UInt64] = []
    private var lists: [LinkList] = []
    private var unread: [Bool] = []

    init(toMany: Bool) { self.toMany = toMany }

    mutating func appendRows(_ count: Int) {
        if toMany {
            lists.append(contentsOf: repeatElement(LinkList(), count: count))
        } else {
            ones.append(contentsOf: repeatElement(0, count: count))
        }
    }

    @inline(__always)
    func value(at row: Int) -> Links? {
        if toMany {
            guard lists.indices.contains(row) else { return nil }
            return isUnread(row) ? .unread : .many(lists[row])
        }
        guard ones.indices.contains(row) else { return nil }
        return .one(ones[row] == 0 ? nil : ObjectID(raw: ones[row]))
    }

    mutating func setOne(_ target: ObjectID?, at row: Int) {
        if !toMany, ones.indices.contains(row) { ones[row] = target?.raw ?? 0 }
    }

    /// Changes a read list (an unread one is left as it is: it must be read first).
    mutating func modifyList(at row: Int, _ change: (inout LinkList) -> Void) {
        if toMany, lists.indices.contains(row), !isUnread(row) { change(&lists[row]) }
    }

    mutating func set(_ value: Links, at row: Int) {
        switch value {
        case .one(let target): setOne(target, at: row)
        case .many(let list):
            guard toMany, lists.indices.contains(row) else { return }
            lists[row] = list
            markRead(row)
        case .unread:
            guard toMany, lists.indices.contains(row) else { return }
            lists[row] = LinkList()
            if unread.count <= row { unread += repeatElement(false, count: row + 1 - unread.count) }
            unread[row] = true
        }
    }

    @inline(__always)
    func isUnread(_ row: Int) -> Bool { unread.indices.contains(row) && unread[row] }

    private mutating func markRead(_ row: Int) {
        if unread.indices.contains(row) { unread[row] = false }
    }

    mutating func clear(_ row: Int) {
        if toMany {
            if lists.indices.contains(row) { lists[row] = LinkList() }
            markRead(row)
        } else {
            setOne(nil, at: row)
        }
    }
}
