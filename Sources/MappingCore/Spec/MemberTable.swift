import MappingArena

/// The keys a mapping reads straight from its representation (key paths of one step, such as
/// `"name"`), compiled when the spec is loaded into a small open-addressing table, so that a reader
/// walks an object's members once and drops each value into its key's slot: one probe per member
/// instead of a search of the object per mapped key.
///
/// A `KeyPath` of one step is given its slot when its mapping is loaded (`KeyPath.member`); the
/// importer gathers a representation's slots when it starts mapping it (`Importer+Members`).
public final class MemberTable: Sendable {
    /// The keys, by slot.
    public let keys: [PlanKey]
    /// Per slot, the key's length and its bytes' fingerprint (`Bytes.fingerprint`): a key of up to
    /// 16 bytes is matched by three comparisons. Longer keys also compare all their bytes.
    @usableFromInline let spellings: [Spelling]
    /// Open addressing: a key's slot + 1 at its hash's position or a later one; 0 for an empty one.
    @usableFromInline let positions: [UInt16]
    @usableFromInline let mask: Int

    @usableFromInline struct Spelling: Sendable {
        @usableFromInline let count: Int
        @usableFromInline let low: UInt64
        @usableFromInline let high: UInt64
    }

    /// The number of slots.
    public var count: Int { keys.count }

    /// Keys beyond this many get no slot (`Builder`); their key paths search the object as before.
    static let maxSlots = 4096

    init(keys: [PlanKey]) {
        self.keys = keys
        spellings = keys.map { key in
            key.utf8.withUnsafeBufferPointer { bytes in
                let (low, high) = Bytes.fingerprint(bytes)
                return Spelling(count: bytes.count, low: low, high: high)
            }
        }
        // At most half full, so probes stay short and always meet an empty entry.
        var size = 8
        while size < keys.count * 2 { size *= 2 }
        var positions = [UInt16](repeating: 0, count: size)
        for (slot, spelling) in spellings.enumerated() {
            var position = Self.hash(spelling.count, spelling.low) & (size - 1)
            while positions[position] != 0 { position = (position + 1) & (size - 1) }
            positions[position] = UInt16(truncatingIfNeeded: slot + 1)
        }
        self.positions = positions
        mask = size - 1
    }

    @inlinable @inline(__always) static func hash(_ count: Int, _ low: UInt64) -> Int {
        let mixed = (low ^ UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15) &* 0xC2B2_AE3D_27D4_EB4F
        return Int(truncatingIfNeeded: mixed >> 40)
    }

    /// Sets the table's slots in `nodes`, from `base`, to `nil` (those the buffer holds), with the
    /// bounds worked out once rather than checked per slot.
    @inlinable @inline(__always) public func clearSlots<N>(of nodes: UnsafeMutableBufferPointer<N?>, at base: Int) {
        let lower = max(base, 0)
        let upper = min(base &+ count, nodes.count)
        var index = lower
        while index < upper {
            nodes[index] = nil
            index &+= 1
        }
    }

    /// The slot of the key spelled by `name`, if the table has it. Inlined into the readers' walks;
    /// every array is indexed after its bounds are checked.
    @inlinable @inline(__always) public func slot(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        let (low, high) = Bytes.fingerprint(name)
        var position = Self.hash(name.count, low) & mask
        while positions.indices.contains(position) {
            let entry = Int(positions[position])
            guard entry != 0 else { return nil }
            let slot = entry - 1
            if spellings.indices.contains(slot) {
                let spelling = spellings[slot]
                if spelling.count == name.count, spelling.low == low, spelling.high == high,
                   name.count <= 16 || spellsLong(name, slot) {
                    return slot
                }
            }
            position = (position + 1) & mask
        }
        return nil
    }

    /// Whether a key longer than 16 bytes is the one at `slot` (its first and last 8 already matched).
    @usableFromInline func spellsLong(_ name: UnsafeBufferPointer<UInt8>, _ slot: Int) -> Bool {
        guard keys.indices.contains(slot) else { return false }
        return keys[slot].utf8.elementsEqual(name)
    }

    /// Gives slots while a mapping is loaded: one per distinct key.
    struct Builder {
        private(set) var keys: [PlanKey] = []
        private var slots: [[UInt8]: Int] = [:]

        /// The slot for `key`, given now if it has none; `nil` once the table is full.
        mutating func slot(for key: PlanKey) -> Int? {
            if let slot = slots[key.utf8] { return slot }
            guard keys.count < MemberTable.maxSlots else { return nil }
            slots[key.utf8] = keys.count
            keys.append(key)
            return keys.count - 1
        }
    }
}
