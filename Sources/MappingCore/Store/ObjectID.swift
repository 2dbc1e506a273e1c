/// A handle to one object of a graph: 64 bits that pack the store's tag, the slot and the slot's
/// generation. A slot reused after a deletion gets a new generation, and every store has its own
/// tag, so a handle to a deleted object or to another context's object is detected, never followed.
///
/// Layout (high to low): tag (16 bits) | generation (16 bits) | slot (32 bits). The tag is never 0,
/// so the raw value 0 is never a valid handle and serves as "no object" at the C boundary.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    public let raw: UInt64

    public init(raw: UInt64) { self.raw = raw }

    init(tag: UInt16, generation: UInt16, slot: UInt32) {
        raw = UInt64(tag) << 48 | UInt64(generation) << 32 | UInt64(slot)
    }

    var tag: UInt16 { UInt16(truncatingIfNeeded: raw >> 48) }
    var generation: UInt16 { UInt16(truncatingIfNeeded: raw >> 32) }
    var slot: Int { Int(UInt32(truncatingIfNeeded: raw)) }

    public var description: String { "#\(slot).\(generation)" }
}
