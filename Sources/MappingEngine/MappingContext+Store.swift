import MappingCore
import MappingSQL
import MappingLock
import MappingJSON

extension MappingContext {
    /// Fills this empty context with what opening a store read, and attaches the store.
    public func attach(_ opened: OpenedStore) throws(MappingError) {
        let found = try attach(opened.store, loading: opened.objects)
        opened.store.attached(opened.objects, as: found)
    }

    /// Fills an empty graph with objects read from a database and attaches the database: from then
    /// on every commit is written to it. Returns each stored key's object. Not a commit: observers
    /// are not called, and nothing is written back.
    public func attach(_ persistent: any PersistentStore, loading objects: [StoredObject]) throws(MappingError) -> [Int64: ObjectID] {
        let model = spec.model
        return try withGraph { (store: inout ObjectStore) throws(MappingError) -> [Int64: ObjectID] in
            guard store.objectCount == 0, store.session.persistent == nil, !store.session.explicitTransaction else {
                throw MappingError(.misuse, "a store can be attached only to an empty context")
            }
            // Identity maps sized once for what is loaded, so they are not rehashed as they grow.
            var perEntity = Array(repeating: 0, count: model.entities.count)
            for stored in objects where perEntity.indices.contains(stored.entity) { perEntity[stored.entity] += 1 }
            for entity in model.entities {
                store.reserve(for: entity, additional: perEntity[entity.index])
            }
            var found: [Int64: ObjectID] = [:]
            found.reserveCapacity(objects.count)
            for stored in objects {
                guard model.entities.indices.contains(stored.entity) else {
                    throw MappingError(.failed, "the store names an entity the model lacks")
                }
                let entity = model.entities[stored.entity]
                let object: ObjectID
                if let identity = ObjectStore.identity(of: stored.values, entity) {
                    guard let (made, isNew) = store.findOrCreate(entity, map: identity.map, key: identity.key,
                                                                 making: .row(stored.values)), isNew else {
                        throw MappingError(.store, "two rows of the store hold one \(entity.name)'s identity: the store was changed outside libmapping")
                    }
                    object = made
                } else {
                    object = store.create(entity, values: stored.values)
                }
                found[stored.key] = object
            }
            // Each relationship is set from one side where one side says it all: a to-one whose
            // inverse is a to-many is set by that to-many (in its order). Other to-ones and every
            // other to-many are set as stored (a many-to-many from both sides, each in its order).
            for stored in objects {
                guard let object = found[stored.key] else { continue }
                let entity = model.entities[stored.entity]
                for (index, relationship) in entity.relationships.enumerated() where stored.links.indices.contains(index) {
                    if !relationship.toMany && model.inverse(of: relationship)?.toMany == true { continue }
                    let targets = stored.links[index].compactMap { found[$0] }
                    if !targets.isEmpty {
                        store.setTargets(of: object, relationship: index, relationship, to: targets, model: model)
                    }
                }
            }
            store.session.persistent = persistent
            return found
        }
    }
}
