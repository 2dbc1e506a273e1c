/// Identities becoming objects. `findOrCreate` is the one find-or-create: the importer (a
/// representation, a bare identity value), the connector (a foreign key) and a database's rows read
/// at open go through it. An object made before its identity is known (a mapping identified by a
/// predicate, a row another process wrote) is registered by `registerIfFree`; a direct change that
/// sets an identity registers it or refuses the change (`GraphEditor.register`).
extension ObjectStore {
    /// How `findOrCreate` makes the object an identity names when there is none.
    package enum NewObject {
        /// With only its identification set, from the key's values (in the entity's identification
        /// order): a single identity never becomes an array on the way.
        case identified
        /// With all its values at once, in declaration order (a row read back from a database).
        case row([AttributeValue?])
    }

    /// The object registered under `key` in identity map `map` (`isNew` false) — of whatever entity
    /// it is: the caller decides whether that kind will do — else, with `making`, a new object of
    /// `entity` made so and registered under `key` (`isNew` true); else nil. `absent`: the caller
    /// has just looked `key` up in vain (`lookup(map:bytes:)`), so it is not looked up again.
    package mutating func findOrCreate(_ entity: Entity, map: Int, key: IdentityKey,
                                       making: NewObject?, absent: Bool = false) -> (object: ObjectID, isNew: Bool)? {
        if !absent, let existing = lookup(map: map, key: key) { return (existing, false) }
        guard let making else { return nil }
        let object: ObjectID
        switch making {
        case .identified:
            object = create(entity)
            switch key {
            case .single(let value):
                if let attribute = entity.identification.first { setValue(value, of: object, attribute: attribute) }
            case .compound(let values):
                for (attribute, value) in zip(entity.identification, values) {
                    setValue(value, of: object, attribute: attribute)
                }
            }
        case .row(let values):
            object = create(entity, values: values)
        }
        register(object, map: map, key: key)
        return (object, true)
    }

    /// The identity map and key of an object with these values (in declaration order); nil when the
    /// entity has no identification or one of its identification values is null.
    package static func identity(of values: [AttributeValue?], _ entity: Entity) -> (map: Int, key: IdentityKey)? {
        guard let map = entity.identityMap else { return nil }
        if entity.identification.count == 1, let attribute = entity.identification.first {
            // Most identifications are one attribute: no array made for the key.
            guard values.indices.contains(attribute), let value = values[attribute] else { return nil }
            return (map, .single(value))
        }
        var key: [AttributeValue] = []
        key.reserveCapacity(entity.identification.count)
        for attribute in entity.identification {
            guard values.indices.contains(attribute), let value = values[attribute] else { return nil }
            key.append(value)
        }
        return (map, IdentityKey(key))
    }

    /// Registers a live object in its entity's identity map if its identity is complete and free.
    package mutating func registerIfFree(_ object: ObjectID, _ entity: Entity) {
        guard let identity = identity(of: object, entity), lookup(map: identity.map, key: identity.key) == nil else { return }
        register(object, map: identity.map, key: identity.key)
    }
}
