/// What an open transaction changed, so that a failure can put the graph back exactly as it was:
/// records as they were before their first change, objects created, identity-map entries replaced.
/// Objects not touched cost nothing, so a small import into a large graph rolls back cheaply.
struct Journal {
    struct IdentityChange {
        let map: Int
        let key: IdentityKey
        let previous: ObjectID?
    }

    var beforeImages: [Int: ObjectRecord] = [:]
    private(set) var created: [ObjectID] = []
    private var createdSlots: Set<Int> = []
    var identityChanges: [IdentityChange] = []
    /// Slots of objects deleted in the transaction, with the generation their handles carry.
    private(set) var deleted: [(slot: Int, generation: UInt16)] = []
    /// Member list lengths and live counts when the transaction began.
    var memberCounts: [Int] = []
    var liveCounts: [Int] = []

    func isNew(_ id: ObjectID) -> Bool { createdSlots.contains(id.slot) }

    mutating func noteCreated(_ id: ObjectID) {
        created.append(id)
        createdSlots.insert(id.slot)
    }

    mutating func noteDeleted(slot: Int, generation: UInt16) { deleted.append((slot, generation)) }
}

extension ObjectStore {
    /// Runs `body` as one all-or-nothing change: if it throws, every change it made is undone before
    /// the error is rethrown.
    mutating func transaction<T>(_ body: (inout ObjectStore) throws(MappingError) -> T) throws(MappingError) -> T {
        var opened = Journal()
        opened.memberCounts = members.map(\.count)
        opened.liveCounts = liveCounts
        journal = opened
        do {
            let result = try body(&self)
            let committed = journal
            journal = nil
            release(slots: committed?.deleted.map(\.slot) ?? [])
            compactMembers()
            return result
        } catch {
            rollback()
            throw error
        }
    }

    private mutating func rollback() {
        guard let journal else { return }
        self.journal = nil
        for change in journal.identityChanges.reversed() {
            restoreIdentity(map: change.map, key: change.key, to: change.previous)
        }
        for (slot, generation) in journal.deleted.reversed() {
            undelete(slot: slot, generation: generation)
        }
        for (slot, record) in journal.beforeImages {
            restore(slot: slot, to: record)
        }
        for id in journal.created.reversed() {
            discardCreated(id)
        }
        restoreMembers(counts: journal.memberCounts, liveCounts: journal.liveCounts)
    }
}
