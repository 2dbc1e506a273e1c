/// One representation into one object: find or create it, skip it when unmodified, set its
/// attributes and relationships, and record it for the post-pass.
extension Importer {
    /// Maps one representation; `nil` only when `create` is false and no object has its identity.
    mutating func mapObject(_ node: Reader.Node, _ mapping: MappingPlan, create: Bool = true,
                                    key: String? = nil, index: Int? = nil) throws(MappingError) -> ObjectID? {
        // A bare value (`"418"` in an array of ids) is a representation only for a mapping that
        // maps the representation itself (`@self`).
        guard reader.kind(of: node) == .object || mapping.mapsSelf else {
            throw MappingError(.type, "expected an object for mapping \"\(mapping.name)\"", path: path.text())
        }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else {
            throw MappingError(.depth, "objects nested more than \(Self.maxDepth) levels deep", path: path.text())
        }
        guard model.entities.indices.contains(mapping.entity) else {
            throw MappingError(.failed, "mapping \"\(mapping.name)\" names no entity")
        }
        let entity = model.entities[mapping.entity]
        representations.append(node)
        collectionIndexes.append(index)
        parentObjects.append(objectsBeingMapped.last)
        let gathered = gatherMembers(node, mapping)
        defer {
            representations.removeLast()
            collectionIndexes.removeLast()
            parentObjects.removeLast()
            if gathered { releaseMembers() }
        }
        options.onEvent?(.willMapObject(mapping: mapping.name))
        if auditCounts != nil { audit(node, mapping) }
        let keyValue = try representationKey(key, mapping, entity)
        let target = takeTarget(entity)
        let found: (ObjectID, isNew: Bool)?
        if let target {
            found = (target, false)
        } else {
            found = try findOrCreate(node, mapping, entity, keyValue: keyValue, create: create)
        }
        guard let (object, isNew) = found else { return nil }
        // The target's identity may change with the values mapped into it: take it out of its
        // identity map now and put it back, checked, once they are set.
        if let target, let old = identityEntry(of: target) { store.unregister(target, map: old.map, key: old.key) }
        objectsBeingMapped.append(object)
        defer { objectsBeingMapped.removeLast() }
        if !isNew, try isUnmodified(object, node, mapping, entity) {
            // Skipped as unmodified, it and the objects it holds count as present for orphan
            // deletion, though their representations were not mapped (RestKit's P6).
            if options.orphanScope != nil, let kind = store.entityIndex(of: object), model.entities.indices.contains(kind) {
                for relationship in model.entities[kind].relationships.indices {
                    touched.formUnion(store.links(of: object, relationship)?.targets ?? [])
                }
            }
            if let target { try registerTarget(target) }
            return finish(object, mapping)
        }
        var present = 0
        if let keyValue, let attribute = mapping.keyAttribute {
            store.setValue(keyValue, of: object, attribute: attribute)
            present += 1
        }
        let base = gathered ? memberFrames.last?.base : nil
        for position in mapping.routes.indices {
            // A gathered member goes straight to its column; anything else (a missing key, which
            // may take a default, or a route of the general path) through `applyAttribute`.
            if let base, let found = gatheredMember(mapping.routes[position].slot, base: base) {
                try applyRouted(found, mapping, position, to: object, entity: entity)
                present += 1
            } else if mapping.attributes.indices.contains(position),
                      try applyAttribute(mapping.attributes[position], from: node, to: object, entity: entity, isNew: isNew,
                                         defaults: mapping.defaultsForMissingAttributes) {
                present += 1
            }
        }
        for relationshipMapping in mapping.relationships {
            if try applyRelationship(relationshipMapping, from: node, to: object, entity: entity,
                                     nullifyMissing: mapping.nullifiesMissingRelationships) {
                present += 1
            }
        }
        // RestKit's rule: a representation with none of the mapping's keys is not a representation
        // of this mapping (while `{"name": null}` is). Failing undoes the object just created.
        if present == 0 && !(mapping.attributes.isEmpty && mapping.relationships.isEmpty) {
            throw MappingError(.mapping, "no mappable values found for mapping \"\(mapping.name)\": the representation has none of its keys",
                               path: path.text())
        }
        if isNew && mapping.identifiesByScan { store.registerIfFree(object, entity) }
        if let target { try registerTarget(target) }
        return finish(object, mapping)
    }

    /// The target object for this representation: only the single top-level one, once, and only
    /// when the object is live and of the mapping's entity (or a sub-entity).
    mutating func takeTarget(_ entity: Entity) -> ObjectID? {
        guard depth == 1, singleRoot, !targetTaken, let target = options.targetObject,
              let kind = store.entityIndex(of: target), model.isKind(kind, of: entity.index) else { return nil }
        targetTaken = true
        return target
    }

    mutating func identityEntry(of object: ObjectID) -> (map: Int, key: IdentityKey)? {
        guard let kind = store.entityIndex(of: object), model.entities.indices.contains(kind) else { return nil }
        return store.identity(of: object, model.entities[kind])
    }

    /// Back into its identity map under the identity it now has, which must be free (as for `mapping_object_set`).
    mutating func registerTarget(_ target: ObjectID) throws(MappingError) {
        guard let kind = store.entityIndex(of: target), model.entities.indices.contains(kind) else { return }
        try GraphEditor(model: model).register(target, model.entities[kind], in: &store)
    }

    /// Records a mapped object: its connections and deletion predicate for later, events, progress.
    mutating func finish(_ object: ObjectID, _ mapping: MappingPlan) -> ObjectID {
        if options.orphanScope != nil { touched.insert(object) }
        if !mapping.connections.isEmpty || mapping.deletionPredicate != nil {
            pendingConnections.append(PendingConnection(object: object, mapping: mapping.index))
        }
        options.onEvent?(.didMapObject(mapping: mapping.name, object: object))
        mappedCount += 1
        if let onProgress = options.onProgress, mappedCount % options.progressInterval == 0 {
            onProgress(mappedCount, max(knownInAdvance ?? knownCount, mappedCount))
        }
        return object
    }

    /// `modificationAttribute`: true when the stored value is not older than the incoming one
    /// (numbers and dates: stored ≥ incoming; other types: equal).
    mutating func isUnmodified(_ object: ObjectID, _ node: Reader.Node, _ mapping: MappingPlan,
                              _ entity: Entity) throws(MappingError) -> Bool {
        guard let attribute = mapping.modificationAttribute, let stored = store.attributeValue(of: object, attribute),
              let attributeMapping = mapping.attributes.first(where: { $0.attribute == attribute }),
              let (found, keyPath) = firstPresent(attributeMapping.alternatives, in: node),
              case .value(let incoming) = try coerce(found, attributeMapping, entity, keyPath) else { return false }
        let (old, new) = (PredicateValue(stored), PredicateValue(incoming))
        switch stored {
        case .integer, .double, .decimal, .date:
            return (PredicateValue.order(old, new, fold: .exact) ?? -1) >= 0
        default:
            return PredicateValue.equal(old, new, fold: .exact)
        }
    }
}
