import MappingArena

/// One attribute of one entity, for every object of the entity: values by row, typed. Numbers and
/// instants take eight bytes a row, booleans a bit, strings an 8-byte reference into the graph's
/// `StringArena`; only decimals and JSON values are kept as boxed `AttributeValue`s. A null row has
/// its `present` bit clear. A value of another type than the column's (none arrives that way: the
/// importer and editor coerce first) is kept boxed beside the row rather than refused.
struct Column {
    let type: AttributeType
    private var present = Bitmap()
    /// integer, double (bit pattern), date (microseconds).
    private var words: [UInt64] = []
    /// boolean.
    private var flags = Bitmap()
    private var strings: [StringArena.Ref] = []
    /// decimal and json.
    private var boxed: [AttributeValue?] = []
    /// Values of another type than the column's, by row.
    private var foreign: [Int: AttributeValue] = [:]
    /// Whether strings are looked up in the arena before they are stored, so repeats are stored
    /// once. A column decides from its first `sharingSample` strings: it keeps sharing if at least
    /// one in eight repeated (cities, statuses, names), else stops (emails, ids, bodies: a lookup
    /// and a table entry each, for nothing). An identification decides as any column: its identity
    /// map files its keys under the column's own bytes.
    private var shares = true
    private var sampled = 0, repeats = 0
    static let sharingSample = 1024

    init(type: AttributeType) {
        self.type = type
    }

    /// Stores a string's bytes as this column's sharing decides, learning from the first ones.
    private mutating func store(_ bytes: UnsafeRawBufferPointer, arena: StringArena) -> StringArena.Ref? {
        var repeated = false
        let ref = arena.store(bytes, share: shares, repeated: &repeated)
        if shares, sampled < Self.sharingSample {
            sampled += 1
            if repeated { repeats += 1 }
            if sampled == Self.sharingSample { shares = repeats * 8 >= sampled }
        }
        return ref
    }

    private enum Layout { case words, bits, strings, boxed }

    private var layout: Layout {
        switch type {
        case .integer, .double, .date: .words
        case .boolean: .bits
        case .string: .strings
        case .decimal, .json: .boxed
        }
    }

    /// Appends `count` null rows.
    mutating func appendRows(_ count: Int) {
        present.append(falses: count)
        switch layout {
        case .words: words.append(contentsOf: repeatElement(0, count: count))
        case .bits: flags.append(falses: count)
        case .strings: strings.append(contentsOf: repeatElement(.empty, count: count))
        case .boxed: boxed.append(contentsOf: repeatElement(nil, count: count))
        }
    }

    @inline(__always)
    func value(at row: Int, arena: StringArena) -> AttributeValue? {
        guard present[row] else { return nil }
        if !foreign.isEmpty, let value = foreign[row] { return value }
        switch type {
        case .integer: return words.indices.contains(row) ? .integer(Int64(bitPattern: words[row])) : nil
        case .double: return words.indices.contains(row) ? .double(Double(bitPattern: words[row])) : nil
        case .boolean: return row < flags.count ? .boolean(flags[row]) : nil
        case .date: return words.indices.contains(row) ? .date(Timestamp(microseconds: Int64(bitPattern: words[row]))) : nil
        case .string: return strings.indices.contains(row) ? .string(arena.string(strings[row])) : nil
        case .decimal, .json: return boxed.indices.contains(row) ? boxed[row] : nil
        }
    }

    /// The stored string of a string row, for a caller that reads bytes in place (`nil` when null
    /// or not a string).
    @inline(__always)
    func stringRef(at row: Int) -> StringArena.Ref? {
        guard present[row], type == .string, strings.indices.contains(row), foreign.isEmpty || foreign[row] == nil else { return nil }
        return strings[row]
    }

    /// `stringRef`, mutating (it only reads) so that the column is read in place (`EntityTable`).
    mutating func stringRefInPlace(at row: Int) -> StringArena.Ref? { stringRef(at: row) }

    /// Whether the row holds `value` already, compared in place (no `String` made from the arena).
    @inline(__always)
    func holds(_ value: AttributeValue?, at row: Int, arena: StringArena) -> Bool {
        guard let value else { return !present[row] }
        guard present[row] else { return false }
        if !foreign.isEmpty, let stored = foreign[row] { return stored == value }
        switch (type, value) {
        case (.integer, .integer(let number)): return words.indices.contains(row) && words[row] == UInt64(bitPattern: number)
        case (.double, .double(let number)): return words.indices.contains(row) && Double(bitPattern: words[row]) == number
        case (.boolean, .boolean(let flag)): return row < flags.count && flags[row] == flag
        case (.date, .date(let instant)): return words.indices.contains(row) && words[row] == UInt64(bitPattern: instant.microseconds)
        case (.string, .string(let text)): return strings.indices.contains(row) && arena.equals(strings[row], text)
        case (.decimal, _), (.json, _): return boxed.indices.contains(row) && boxed[row] == value
        default: return false
        }
    }

    enum StringUpdate { case unchanged, written, differs }

    /// Compares a string row with `bytes`; when they differ and `write` allows, stores them. Mutating
    /// (though it may only read) so that the column is accessed in place, never copied.
    mutating func updateString(_ bytes: UnsafeRawBufferPointer, at row: Int, arena: StringArena, write: Bool) -> StringUpdate {
        guard type == .string, row >= 0, strings.indices.contains(row), foreign.isEmpty || foreign[row] == nil else {
            return .differs
        }
        if present[row], arena.equals(strings[row], bytes) { return .unchanged }
        guard write, let ref = store(bytes, arena: arena) else { return .differs }
        strings[row] = ref
        present[row] = true
        return .written
    }

    mutating func set(_ value: AttributeValue?, at row: Int, arena: StringArena) {
        guard row >= 0, present.count > row else { return }
        if !foreign.isEmpty { foreign[row] = nil }
        guard let value else {
            clear(row)
            return
        }
        // Rows of every array are appended together, so `row` is within the one the type uses.
        switch (type, value) {
        case (.integer, .integer(let number)) where words.indices.contains(row): words[row] = UInt64(bitPattern: number)
        case (.double, .double(let number)) where words.indices.contains(row): words[row] = number.bitPattern
        case (.boolean, .boolean(let flag)) where row < flags.count: flags[row] = flag
        case (.date, .date(let instant)) where words.indices.contains(row): words[row] = UInt64(bitPattern: instant.microseconds)
        case (.string, .string(let text)) where strings.indices.contains(row):
            var text = text
            let stored = text.withUTF8 { store(UnsafeRawBufferPointer($0), arena: arena) }
            if let stored { strings[row] = stored } else { foreign[row] = value }  // 4 GiB or more: kept as it came
        case (.decimal, _) where boxed.indices.contains(row), (.json, _) where boxed.indices.contains(row): boxed[row] = value
        default: foreign[row] = value
        }
        present[row] = true
    }

    /// Makes a row null, letting go of what it held.
    mutating func clear(_ row: Int) {
        guard row >= 0, present.count > row else { return }
        present[row] = false
        if !foreign.isEmpty { foreign[row] = nil }
        if layout == .boxed, boxed.indices.contains(row) { boxed[row] = nil }
    }

}

/// One bit per row.
struct Bitmap {
    private var words: [UInt64] = []
    private(set) var count = 0

    /// Appends `added` clear bits.
    mutating func append(falses added: Int) {
        guard added > 0 else { return }
        count += added
        let needed = (count + 63) >> 6
        if needed > words.count { words.append(contentsOf: repeatElement(0, count: needed - words.count)) }
    }

    subscript(index: Int) -> Bool {
        get {
            guard index >= 0, index < count else { return false }
            return words[index >> 6] & (1 << UInt64(index & 63)) != 0
        }
        set {
            guard index >= 0, index < count else { return }
            if newValue {
                words[index >> 6] |= 1 << UInt64(index & 63)
            } else {
                words[index >> 6] &= ~(1 << UInt64(index & 63))
            }
        }
    }
}
