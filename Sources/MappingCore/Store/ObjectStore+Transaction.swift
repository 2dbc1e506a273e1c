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

    func isNew(_ id: ObjectID) -> Bool { createdSlots.contains(id.slot) }

    mutating func noteCreated(_ id: ObjectID) {
        created.append(id)
        createdSlots.insert(id.slot)
    }
}

extension ObjectStore {
    /// Runs `body` as one all-or-nothing change: if it throws, every change it made is undone before
    /// the error is rethrown.
    mutating func transaction<T>(_ body: (inout ObjectStore) throws(MappingError) -> T) throws(MappingError) -> T {
        journal = Journal()
        do {
            let result = try body(&self)
            journal = nil
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
        for (slot, record) in journal.beforeImages {
            restore(slot: slot, to: record)
        }
        for id in journal.created.reversed() {
            discardCreated(id)
        }
    }
}
