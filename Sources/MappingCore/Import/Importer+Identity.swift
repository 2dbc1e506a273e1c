/// Identification: the values that identify a representation (or a bare identity value), and
/// the object they name in the identity map, or by scan for a mapping's own identification.
extension Importer {
    /// The object the representation identifies: found in the identity map, or created with its
    /// identification values set and registered. Without complete identification values (no
    /// identification, an id missing or null) a new object is created and not registered. With
    /// `create` false, a representation that finds no object gives `nil`.
    mutating func findOrCreate(_ node: Reader.Node, _ mapping: MappingPlan, _ entity: Entity,
                                       keyValue: AttributeValue?, create: Bool) throws(MappingError) -> (ObjectID, isNew: Bool)? {
        if mapping.identifiesByScan {
            let key = mapping.identification.isEmpty ? nil : try identityKey(node, mapping, entity, keyValue: keyValue)
            return findByScan(mapping, entity, values: key?.values, create: create)
        }
        guard let map = entity.identityMap else { return create ? (store.create(entity), true) : nil }
        let byBytes = objectByStringBytes(node, mapping, entity, map: map, keyValue: keyValue)
        if case .found(let object) = byBytes { return (object, false) }
        guard let key = try identityKey(node, mapping, entity, keyValue: keyValue) else {
            if auditCounts != nil { auditMissingIdentification(mapping) }
            return create ? (store.create(entity), true) : nil
        }
        return try findOrCreate(entity, map: map, key: key, create: create, absent: byBytes == .absent)
    }

    /// What looking a string identity up by its bytes found.
    enum FoundByBytes: Equatable {
        case found(ObjectID)
        /// The graph holds no object under it, and knows it holds every one it may (no store rows
        /// to read): the general path need not look again.
        case absent
        /// Not looked up that way (another kind of identity or value), or not known.
        case unknown
    }

    /// The object a single string identity names, found by the bytes the parser holds for it: a
    /// gathered member that is a JSON string is already the value a string attribute takes (no
    /// transformer on a gathered route), so no `String` is made and nothing coerced — what a
    /// re-import does for every phone number. `.unknown` when that does not apply, finds an object
    /// of another kind, or finds nothing on a graph reading its rows as touched: the general path
    /// then runs, as it always did (and notes the identity the graph lacks).
    @inline(__always)
    private func objectByStringBytes(_ node: Reader.Node, _ mapping: MappingPlan, _ entity: Entity, map: Int,
                                     keyValue: AttributeValue?) -> FoundByBytes {
        guard mapping.identification.count == 1, let attribute = mapping.identification.first,
              keyValue == nil || attribute != mapping.keyAttribute,
              let source = mapping.identitySources.first, let source, mapping.routes.indices.contains(source),
              mapping.routes[source].type == .string, let base = frameBase(mapping: mapping.index, node: node),
              let member = gatheredMember(mapping.routes[source].slot, base: base), reader.kind(of: member) == .string
        else { return .unknown }
        guard let found = reader.withStringBytes(of: member, { store.lookup(map: map, bytes: $0) }) else {
            // A graph that reads its store's rows as touched must note the identity it lacks.
            return store.session.faultLog == nil ? .absent : .unknown
        }
        guard let kind = store.entityIndex(of: found), model.isKind(kind, of: entity.index) else { return .unknown }
        return .found(found)
    }

    mutating func findOrCreate(_ entity: Entity, map: Int, key: IdentityKey,
                                       create: Bool, absent: Bool = false) throws(MappingError) -> (ObjectID, isNew: Bool)? {
        guard let (object, isNew) = store.findOrCreate(entity, map: map, key: key, making: create ? .identified : nil,
                                                      absent: absent) else { return nil }
        if !isNew, let existingEntity = store.entityIndex(of: object), !model.isKind(existingEntity, of: entity.index) {
            let found = model.entities.indices.contains(existingEntity) ? model.entities[existingEntity].name : "?"
            throw MappingError(.mapping, "the object with this identity is a \(found), not a \(entity.name)",
                               path: path.text(), attribute: entity.name)
        }
        return (object, isNew)
    }

    /// A mapping's own identification or an identificationPredicate: the first object of the entity
    /// with these values that matches the predicate (RestKit's fetch, then filter), else a new one,
    /// registered in the entity's identity map once its attributes are set, if its identity is free.
    mutating func findByScan(_ mapping: MappingPlan, _ entity: Entity, values: [AttributeValue]?,
                                     create: Bool) -> (ObjectID, isNew: Bool)? {
        if let values {
            // On part of a store-backed graph, the rows with these values are read first
            // (`ObjectStore+Scan`).
            let kinds = model.entities.filter { model.isKind($0.index, of: entity.index) }.map(\.index)
            let tests = zip(mapping.identification, values).map { attribute, value in RowScan.Test(attribute: attribute, values: [value]) }
            let evaluator = PredicateEvaluator(store: store)
            let scan = RowScan(entity: entity.index, kinds: kinds, tests: tests)
            if let found = store.matching(scan, bytewise: true, model: model, first: true, accept: { object in
                mapping.identificationPredicate.map { evaluator.matches(object, $0) } ?? true
            }).first {
                return (found, false)
            }
        }
        guard create else { return nil }
        let object = store.create(entity)
        for (attribute, value) in zip(mapping.identification, values ?? []) {
            store.setValue(value, of: object, attribute: attribute)
        }
        return (object, true)
    }

    /// The identity key of a representation: its identification values coerced, in order; nil when
    /// one is missing or null. A single identification (the common case) is read without making an
    /// array (an allocation per object).
    mutating func identityKey(_ node: Reader.Node, _ mapping: MappingPlan, _ entity: Entity,
                              keyValue: AttributeValue?) throws(MappingError) -> IdentityKey? {
        if mapping.identification.count == 1, let attribute = mapping.identification.first,
           let source = mapping.identitySources.first {
            return try identificationValue(node, mapping, entity, attribute: attribute, source: source,
                                           keyValue: keyValue).map { .single($0) }
        }
        var values: [AttributeValue] = []
        values.reserveCapacity(mapping.identification.count)
        for (attribute, source) in zip(mapping.identification, mapping.identitySources) {
            guard let value = try identificationValue(node, mapping, entity, attribute: attribute, source: source,
                                                      keyValue: keyValue) else { return nil }
            values.append(value)
        }
        return IdentityKey(values)
    }

    /// One identification value of a representation, coerced (nil when missing or null).
    private mutating func identificationValue(_ node: Reader.Node, _ mapping: MappingPlan, _ entity: Entity,
                                              attribute: Int, source: Int?,
                                              keyValue: AttributeValue?) throws(MappingError) -> AttributeValue? {
        if attribute == mapping.keyAttribute, let keyValue { return keyValue }
        guard let source, mapping.attributes.indices.contains(source) else { return nil }
        if let base = frameBase(mapping: mapping.index, node: node),
           mapping.routes.indices.contains(source), mapping.routes[source].slot >= 0 {
            // The identity's member was gathered: coerced as `applyRouted` does.
            guard let found = gatheredMember(mapping.routes[source].slot, base: base) else { return nil }
            guard case .value(let value) = try coerceRouted(found, mapping, source, entity) else { return nil }
            return value
        }
        let attributeMapping = mapping.attributes[source]
        guard let (found, keyPath) = firstPresent(attributeMapping.alternatives, in: node),
              case .value(let value) = try coerce(found, attributeMapping, entity, keyPath) else {
            return nil
        }
        return value
    }

    /// The member key of a representation (dynamic keys), coerced to the key attribute's type.
    mutating func representationKey(_ key: String?, _ mapping: MappingPlan,
                                   _ entity: Entity) throws(MappingError) -> AttributeValue? {
        guard let key, let attribute = mapping.keyAttribute, entity.attributes.indices.contains(attribute) else {
            return nil
        }
        let declared = entity.attributes[attribute]
        do throws(MappingError) {
            if case .value(let value) = try Coercion.coerce(.string(key), to: declared.type) { return value }
            return nil
        } catch {
            throw MappingError(error.code, "cannot map the key at \(path.text()) into \(entity.name).\(declared.name): \(error.message)",
                               path: path.text(), attribute: entity.name + "." + declared.name)
        }
    }

    /// The object a bare identity value stands for: found, or created with only its identity set
    /// (`nil` when `create` is false and there is none).
    mutating func reference(_ node: Reader.Node, _ relationship: Relationship,
                                    create: Bool) throws(MappingError) -> ObjectID? {
        guard model.entities.indices.contains(relationship.destination) else { return nil }
        let destination = model.entities[relationship.destination]
        guard let map = destination.identityMap, let attribute = destination.identification.first,
              destination.attributes.indices.contains(attribute) else { return nil }
        let declared = destination.attributes[attribute]
        let coerced: Coerced
        do throws(MappingError) {
            guard reader.kind(of: node) != .object, reader.kind(of: node) != .array else {
                throw MappingError(.type, "expected an identity of \(destination.name), found \(reader.kind(of: node) == .object ? "an object" : "an array")")
            }
            coerced = try Coercion.coerce(node, reader: reader, to: declared.type, depthLimit: 1)
        } catch {
            throw MappingError(error.code, "cannot use the value at \(path.text()) as the identity \(destination.name).\(declared.name): \(error.message)",
                               path: path.text(), attribute: destination.name + "." + declared.name)
        }
        guard case .value(let value) = coerced else { return nil }
        let found = try findOrCreate(destination, map: map, key: .single(value), create: create)?.0
        if let found, options.orphanScope != nil { touched.insert(found) }
        return found
    }
}
