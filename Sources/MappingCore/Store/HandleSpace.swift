import MappingLock

/// The part of the 64-bit handle space one store gives out: its tag and the first slot number of
/// its handles. No two stores of a process ever give out the same (tag, slot) pair, so a handle of a
/// freed context can never name an object of a later one, however many contexts come and go.
///
/// A tag (16 bits) is shared by one live store at a time. When its store goes, the tag is free again,
/// but the next store on it numbers its slots after the last one the previous stores used. Slot
/// numbers are 32 bits; a tag retires once its next first slot passes 2^31, so that every store has
/// at least 2^31 slots (more objects than memory can hold). 65,535 tags × 2^31 slots is some 1.4e14
/// objects over the life of a process.
public struct HandleSpace: Sendable {
    let tag: UInt16
    let firstSlot: Int

    /// For a store that never gives out handles (the importer's placeholder while it swaps stores).
    static let placeholder = HandleSpace(tag: 0, firstSlot: 0)

    private static let retiredFrom = 1 << 31

    private struct Registry {
        var nextFirstSlot = [Int](repeating: 0, count: 1 << 16)
        var inUse = [Bool](repeating: false, count: 1 << 16)
        var cursor = 0
    }

    private static let registry = Locked(Registry())

    /// A free tag with room left, taken round-robin; `.range` when every tag is in use by a live
    /// context (65,535 at once) or retired.
    package static func lease() throws(MappingError) -> HandleSpace {
        let found: HandleSpace? = registry.withLock { state in
            let tags = state.inUse.count
            for step in 1..<tags {
                let tag = (state.cursor + step) % tags
                guard tag != 0, !state.inUse[tag], state.nextFirstSlot[tag] < retiredFrom else { continue }
                state.inUse[tag] = true
                state.cursor = tag
                return HandleSpace(tag: UInt16(truncatingIfNeeded: tag), firstSlot: state.nextFirstSlot[tag])
            }
            return nil
        }
        guard let found else {
            throw MappingError(.range, "no handle space left for another context: 65,535 contexts are alive at once")
        }
        return found
    }

    /// Gives the tag back after its store used `slots` slot numbers from its first one.
    package static func release(_ space: HandleSpace, slotsUsed slots: Int) {
        guard space.tag != 0 else { return }
        registry.withLock { state in
            let tag = Int(space.tag)
            state.inUse[tag] = false
            state.nextFirstSlot[tag] = space.firstSlot + slots
        }
    }
}
