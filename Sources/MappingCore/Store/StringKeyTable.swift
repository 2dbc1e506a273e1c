import MappingArena

/// The identity-map entries whose key is one string: open addressing with linear probing
/// (`LinearProbing`) over one flat array of 16-byte entries, each the key's bytes in the graph's string arena (a `Ref`:
/// usually the very bytes the object's identification column holds, so a key costs no copy and no
/// entry in the arena's table of shared strings) and the object. Keys are hashed and compared as
/// bytes, never as `String`s; bytes in the arena never change, so an entry's key stays what it
/// was filed under whatever the object's row holds later, and also once the row is gone (an
/// evicted object's identity kept under its fault).
package struct StringKeyTable {
    private struct Entry {
        var key: StringArena.Ref
        /// The object's handle with its top 16 bits (the store's tag, the same in every entry:
        /// `tag`) replaced by 15 bits of the key's hash and a set top bit, so that a probe passes
        /// other keys without reading their bytes; 0 marks an empty slot.
        var word: UInt64
    }

    private var slots: [Entry] = []
    /// The store tag of the handles filed (the top 16 bits of each).
    private var tag: UInt64 = 0
    package private(set) var count = 0

    private static let handleBits: UInt64 = 0xFFFF_FFFF_FFFF
    private static let tagBits: UInt64 = 0xFFFF << 48

    package init() {}

    @inline(__always)
    private static func mark(_ hash: UInt64) -> UInt64 { (hash & tagBits) | 1 << 63 }

    /// The slot holding `bytes`, or the empty slot where they would go.
    @inline(__always)
    private func position(of bytes: UnsafeRawBufferPointer, hash: UInt64, arena: StringArena) -> Int {
        let mask = slots.count - 1
        let mark = Self.mark(hash)
        var probe = Int(truncatingIfNeeded: hash) & mask
        while slots[probe].word != 0 {
            if slots[probe].word & Self.tagBits == mark, slots[probe].key.count == bytes.count,
               arena.equals(slots[probe].key, bytes) {
                return probe
            }
            probe = (probe + 1) & mask
        }
        return probe
    }

    private func handle(_ word: UInt64) -> ObjectID { ObjectID(raw: tag | word & Self.handleBits) }

    package func object(for key: String, arena: StringArena) -> ObjectID? {
        guard count > 0 else { return nil }
        var text = key
        return text.withUTF8 { object(forBytes: UnsafeRawBufferPointer($0), arena: arena) }
    }

    /// The object filed under the key whose UTF-8 bytes these are.
    package func object(forBytes bytes: UnsafeRawBufferPointer, arena: StringArena) -> ObjectID? {
        guard count > 0 else { return nil }
        let found = slots[position(of: bytes, hash: arena.hash(bytes), arena: arena)].word
        return found == 0 ? nil : handle(found)
    }

    /// Files `object` under `key`; returns the object it replaces. The key is filed under `stored`
    /// when that holds its bytes, else under a copy stored in the arena; `filed` is false when the
    /// arena cannot store it (4 GiB or more), and nothing changes.
    package mutating func set(_ object: ObjectID, for key: String, stored: StringArena.Ref?,
                              arena: StringArena) -> (filed: Bool, previous: ObjectID?) {
        if LinearProbing.isFull(count: count, slots: slots.count) { grow(to: LinearProbing.grown(slots.count), arena: arena) }
        let objectTag = object.raw & Self.tagBits
        guard count == 0 || objectTag == tag else { return (false, nil) }
        var text = key
        return text.withUTF8 { utf8 -> (filed: Bool, previous: ObjectID?) in
            let bytes = UnsafeRawBufferPointer(utf8)
            let hash = arena.hash(bytes)
            let probe = position(of: bytes, hash: hash, arena: arena)
            let word = Self.mark(hash) | object.raw & Self.handleBits
            let previous = slots[probe].word
            if previous != 0 {
                slots[probe].word = word
                return (true, handle(previous))
            }
            var repeated = false
            guard let filedKey = stored.flatMap({ arena.equals($0, bytes) ? $0 : nil })
                    ?? arena.store(bytes, share: false, repeated: &repeated) else { return (false, nil) }
            tag = objectTag
            slots[probe] = Entry(key: filedKey, word: word)
            count += 1
            return (true, nil)
        }
    }

    /// Removes `key`; returns the object it named. Later entries of its probe run move back into
    /// the gap (no tombstones, so lookups never slow down after many removals).
    @discardableResult
    package mutating func remove(_ key: String, arena: StringArena) -> ObjectID? {
        guard count > 0 else { return nil }
        var text = key
        let found = text.withUTF8 { utf8 -> Int? in
            let bytes = UnsafeRawBufferPointer(utf8)
            let probe = position(of: bytes, hash: arena.hash(bytes), arena: arena)
            return slots[probe].word == 0 ? nil : probe
        }
        guard var gap = found else { return nil }
        let removed = handle(slots[gap].word)
        let mask = slots.count - 1
        var next = (gap + 1) & mask
        while slots[next].word != 0 {
            if LinearProbing.fillsGap(gap, from: next, home: home(slots[next].key, mask: mask, arena: arena)) {
                slots[gap] = slots[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        slots[gap] = Entry(key: .empty, word: 0)
        count -= 1
        return removed
    }

    /// The slot an entry's probe starts at (its key's bytes hashed again: entries keep only part
    /// of the hash).
    private func home(_ key: StringArena.Ref, mask: Int, arena: StringArena) -> Int {
        Int(truncatingIfNeeded: arena.withBytes(key) { arena.hash($0) }) & mask
    }

    /// Room for `additional` more entries without growing.
    package mutating func reserve(additional: Int, arena: StringArena) {
        if let size = LinearProbing.size(holding: additional, beyond: count, slots: slots.count) {
            grow(to: size, arena: arena)
        }
    }

    private mutating func grow(to size: Int, arena: StringArena) { place(slots, in: size, arena: arena) }

    /// A table of `size` slots holding `entries` (the empty ones skipped), each at its home or after.
    private mutating func place(_ entries: [Entry], in size: Int, arena: StringArena) {
        slots = Array(repeating: Entry(key: .empty, word: 0), count: size)
        let mask = size - 1
        for entry in entries where entry.word != 0 {
            var probe = home(entry.key, mask: mask, arena: arena)
            while slots[probe].word != 0 { probe = (probe + 1) & mask }
            slots[probe] = entry
        }
    }

    /// Every entry, in no particular order.
    func entries(arena: StringArena) -> [(key: String, object: ObjectID)] {
        slots.compactMap { $0.word == 0 ? nil : (arena.string($0.key), handle($0.word)) }
    }

    /// Keeps only the entries whose object `keep` accepts (their keys stay where they were filed).
    mutating func filter(arena: StringArena, _ keep: (ObjectID) -> Bool) {
        let kept = slots.filter { $0.word != 0 && keep(handle($0.word)) }
        count = kept.count
        let size = LinearProbing.size(holding: kept.count, beyond: 0, slots: 0) ?? 0
        if size == 0 { slots = [] } else { place(kept, in: size, arena: arena) }
    }
}
