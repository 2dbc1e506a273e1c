/// The rules the identity tables (`IntegerKeyTable`, `StringKeyTable`) share: open addressing with
/// linear probing over a power-of-two number of slots kept at most three quarters full, and
/// removals that close up their probe run instead of leaving tombstones.
enum LinearProbing {
    /// Whether one more entry needs a larger table.
    @inline(__always)
    static func isFull(count: Int, slots: Int) -> Bool { (count + 1) * 4 > slots * 3 }

    /// The number of slots a full table of `slots` grows to.
    static func grown(_ slots: Int) -> Int { max(16, slots * 2) }

    /// The number of slots that holds `additional` more entries than `count`, if more than `slots`;
    /// nil when the table has room, and for an absurd count (ignored, never trapped on).
    static func size(holding additional: Int, beyond count: Int, slots: Int) -> Int? {
        let (total, overflow) = count.addingReportingOverflow(additional)
        guard !overflow, additional > 0, total < 1 << 40 else { return nil }
        let wanted = total * 4
        var size = max(16, slots)
        while size * 3 < wanted, size < 1 << 40 { size *= 2 }
        return size > slots ? size : nil
    }

    /// Whether the entry at `next`, whose probe starts at `home`, may move back into the empty
    /// slot `gap` of its run: its home is not in the cyclic range (gap, next].
    @inline(__always)
    static func fillsGap(_ gap: Int, from next: Int, home: Int) -> Bool {
        (next > gap && (home <= gap || home > next)) || (next < gap && home <= gap && home > next)
    }
}
