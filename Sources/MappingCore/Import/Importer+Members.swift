/// One walk of a representation's members: when the importer starts mapping an object, the values
/// of the keys its mapping reads (its `MemberTable`) are put in slots, so each key path of one step
/// is a slot read instead of a search of the object (rule 10 of `HotPath.md`).
extension Importer {
    /// Gathers `node`'s members for `mapping`; true when a frame was pushed (`releaseMembers` pops it).
    mutating func gatherMembers(_ node: Reader.Node, _ mapping: MappingPlan) -> Bool {
        guard Reader.identifiesNodes, mapping.members.count > 0, reader.kind(of: node) == .object else { return false }
        // The slots above `memberTop` are reused: the array only grows, to the deepest nesting's needs.
        let base = memberTop
        let top = base + mapping.members.count
        if memberNodes.count < top { memberNodes.append(contentsOf: repeatElement(nil, count: top - memberNodes.count)) }
        memberTop = top
        reader.gather(node, mapping.members, into: &memberNodes, at: base)
        memberFrames.append(MemberFrame(node: node, mapping: mapping.index, base: base))
        return true
    }

    mutating func releaseMembers() {
        guard let frame = memberFrames.popLast() else { return }
        memberTop = frame.base
    }

    /// The gathered value of `member` (a key path's slot) when `node` is the representation being
    /// mapped with the key path's mapping: `.some(nil)` for a key the object lacks, `nil` when
    /// nothing was gathered for it (the caller then searches the object).
    mutating func gathered(_ member: (mapping: Int, slot: Int), in node: Reader.Node) -> Reader.Node?? {
        guard let base = frameBase(mapping: member.mapping, node: node), member.slot >= 0,
              base + member.slot < memberTop, memberNodes.indices.contains(base + member.slot) else { return nil }
        return .some(memberNodes[base + member.slot])
    }

    /// Where the slots of the representation being mapped start, when it is `node` mapped with
    /// mapping `mapping` (its members were gathered); `nil` otherwise.
    @inline(__always) func frameBase(mapping: Int, node: Reader.Node) -> Int? {
        guard let frame = memberFrames.last, frame.mapping == mapping, reader.same(frame.node, node) else { return nil }
        return frame.base
    }

    /// The node gathered in `slot` of the frame at `base`; nil for a key the object lacks, or a
    /// negative slot (a route of the general path).
    @inline(__always) func gatheredMember(_ slot: Int, base: Int) -> Reader.Node? {
        guard slot >= 0, base + slot < memberTop, memberNodes.indices.contains(base + slot) else { return nil }
        return memberNodes[base + slot]
    }
}
