/// The store's structural invariants, checked from outside the hot path (the Swift test suite runs
/// the check after every call that changes a graph; swift-collections' `_checkInvariants` is the
/// model). Each returns what it found broken, as sentences; an empty list means the store is sound.
extension ObjectStore {
    package func invariantViolations(model: Model) -> [String] {
        var found: [String] = []
        checkPlaces(&found)
        checkCountsAndMembers(model, &found)
        checkIdentityMaps(model, &found)
        checkInverses(model, &found)
        checkIndexes(&found)
        return found
    }

    /// The live objects as records, by slot.
    private var liveRecords: [(slot: Int, id: ObjectID, record: ObjectRecord)] {
        (0..<slotsUsed).compactMap { slot in
            guard let id = liveID(slot: slot), let record = record(id) else { return nil }
            return (slot, id, record)
        }
    }

    /// Each live object's row is owned by its slot in its entity's table, and no two objects share
    /// a row.
    private func checkPlaces(_ found: inout [String]) {
        var rowsTaken = Array(repeating: 0, count: tables.count)
        for slot in 0..<slotsUsed {
            guard let id = liveID(slot: slot) else { continue }
            guard let place = place(of: id) else {
                found.append("slot \(slot) has a place but its handle \(id) is not live")
                continue
            }
            let table = tables[Int(place.entity)]
            rowsTaken[Int(place.entity)] += 1
            if !table.slots.indices.contains(place.row) || Int(table.slots[place.row]) != slot {
                found.append("object \(id) lives in row \(place.row) of entity \(place.entity), which another slot owns")
            }
        }
        // Slots of objects deleted in an open transaction are freed only when it commits.
        // Faults (rows of the database not read yet) hold a slot but no row.
        let live = rowsTaken.reduce(0, +) + (journal?.deleted.count ?? 0) + faultCount
        if objectCount != live {
            found.append("the store counts \(objectCount) objects but \(live) slots hold one (a slot neither live nor free)")
        }
        for (entity, table) in tables.enumerated() {
            let owned = table.slots.filter { $0 != UInt32.max }.count
            if owned != rowsTaken[entity] {
                found.append("the table of entity \(entity) has \(owned) rows in use for \(rowsTaken[entity]) live objects")
            }
        }
    }

    /// Live counts equal the live records of each entity, and every live object is in its
    /// entity's member list exactly once.
    private func checkCountsAndMembers(_ model: Model, _ found: inout [String]) {
        var counted = Array(repeating: 0, count: liveCounts.count)
        for (_, id, record) in liveRecords {
            guard counted.indices.contains(record.entity) else {
                found.append("object \(id) names entity \(record.entity), which the model lacks")
                continue
            }
            counted[record.entity] += 1
            let entity = model.entities[record.entity]
            if record.values.count != entity.attributes.count || record.links.count != entity.relationships.count {
                found.append("object \(id) of \(entity.name) has \(record.values.count) values and \(record.links.count) links")
            }
            for (index, relationship) in entity.relationships.enumerated() where record.links.indices.contains(index) {
                if case .many = record.links[index], !relationship.toMany {
                    found.append("\(entity.name).\(relationship.name) of \(id) holds a list but is to-one")
                }
            }
        }
        if counted != liveCounts {
            found.append("live counts \(liveCounts) but the records count \(counted)")
        }
        for (entity, list) in members.enumerated() {
            let live = list.filter(contains)
            if Set(live).count != live.count {
                found.append("the member list of entity \(entity) names an object twice")
            }
            if counted.indices.contains(entity), live.count != counted[entity] {
                found.append("the member list of entity \(entity) holds \(live.count) live objects, the records \(counted[entity])")
            }
            for id in live where record(id)?.entity != entity {
                found.append("object \(id) is in the member list of entity \(entity) but is not of it")
            }
        }
    }

    /// Every entry names a live object whose identification values make that key; every live
    /// object with a complete identity is found under it (by itself, or by an equal twin a
    /// scan-identified mapping made while the key was taken).
    private func checkIdentityMaps(_ model: Model, _ found: inout [String]) {
        for (map, identities) in identityMaps.enumerated() {
            for (key, id) in identities.entries(arena: arena) {
                // An evicted object's identity is kept under its fault (`identitiesComplete`).
                if session.identitiesComplete, faultEntity(id) != nil { continue }
                guard let record = record(id), model.entities.indices.contains(record.entity) else {
                    found.append("identity map \(map) names \(id), which is not live")
                    continue
                }
                let entity = model.entities[record.entity]
                guard let actual = ObjectStore.identity(of: record.values, entity), actual.map == map, actual.key == key else {
                    found.append("identity map \(map) files \(id) (\(entity.name)) under a key its values do not make")
                    continue
                }
            }
        }
        for (_, id, record) in liveRecords {
            guard model.entities.indices.contains(record.entity),
                  let identity = ObjectStore.identity(of: record.values, model.entities[record.entity]) else { continue }
            guard let holder = lookup(map: identity.map, key: identity.key) else {
                found.append("\(model.entities[record.entity].name) \(id) has a complete identity missing from its identity map")
                continue
            }
            if holder != id, let other = self.record(holder),
               ObjectStore.identity(of: other.values, model.entities[other.entity])?.key != identity.key {
                found.append("the identity of \(id) is filed under \(holder), whose values differ")
            }
        }
    }

    /// Relationships with an inverse agree both ways between live objects.
    private func checkInverses(_ model: Model, _ found: inout [String]) {
        for (_, owner, record) in liveRecords {
            guard model.entities.indices.contains(record.entity) else { continue }
            let entity = model.entities[record.entity]
            for (index, relationship) in entity.relationships.enumerated() where record.links.indices.contains(index) {
                guard let inverse = relationship.inverse else { continue }
                for target in record.links[index].targets {
                    guard let other = self.record(target) else { continue }
                    // A list not read from the store yet holds what the database says.
                    if other.links.indices.contains(inverse), case .unread = other.links[inverse] { continue }
                    if !(other.links.indices.contains(inverse) && other.links[inverse].targets.contains(owner)) {
                        found.append("\(entity.name).\(relationship.name) of \(owner) holds \(target), whose inverse does not hold it back")
                    }
                }
            }
        }
    }

    /// Index entries are exactly the indexed values of live objects.
    private func checkIndexes(_ found: inout [String]) {
        for (key, index) in indexes {
            var entries = 0
            for (value, objects) in index.objects {
                for id in objects {
                    entries += 1
                    guard let record = record(id), record.values.indices.contains(key.attribute),
                          record.values[key.attribute] == value else {
                        found.append("the index of attribute \(key.attribute) files \(id) under a value it does not have")
                        continue
                    }
                }
            }
            var expected = 0
            for (_, id, record) in liveRecords {
                guard indexKeys.indices.contains(record.entity), indexKeys[record.entity][key.attribute] == key,
                      record.values.indices.contains(key.attribute), let value = record.values[key.attribute] else { continue }
                expected += 1
                if !index.equal(to: value).contains(id) {
                    found.append("the index of attribute \(key.attribute) lacks \(id)")
                }
            }
            if entries != expected {
                found.append("the index of attribute \(key.attribute) holds \(entries) entries for \(expected) indexed values")
            }
        }
    }
}
