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
        guard let frame = memberFrames.last, frame.mapping == member.mapping, reader.same(frame.node, node),
              frame.base + member.slot < memberTop, memberNodes.indices.contains(frame.base + member.slot) else { return nil }
        return .some(memberNodes[frame.base + member.slot])
    }

    /// The node gathered in `slot` of the frame at `base`; nil for a key the object lacks, or a
    /// negative slot (a route of the general path).
    @inline(__always) func gatheredMember(_ slot: Int, base: Int) -> Reader.Node? {
        guard slot >= 0, base + slot < memberTop, memberNodes.indices.contains(base + slot) else { return nil }
        return memberNodes[base + slot]
    }
}
