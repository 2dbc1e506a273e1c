/// Maps one parsed payload into the store with one mapping plan. Generic over the reader so the
/// payload is read in place; the caller runs it inside a store transaction, so any error leaves
/// the graph as it was.
///
/// Per representation: identification values are read and coerced first, the identity map finds
/// the existing object or a new one is created and registered (so a later repetition in the same
/// payload finds it), then attributes are set (missing key: left alone; `null`: cleared), then
/// nested relationships are mapped and assigned with inverses kept in step.
///
/// Its helper methods are `mutating` even where they only read: the importer is a large struct
/// held `inout`, and calling a non-mutating method on it copied all of it (a memcpy of ~540 bytes
/// and a retain of every field) at each call. A final class instead paid more in dynamic
/// exclusivity checks. (Measured with callgrind: 534M → 487M instructions per 10k-person import.)
struct Importer<Reader: JSONReader> {
    let spec: CompiledSpec
    let reader: Reader
    var store: ObjectStore
    /// The host's transformers, as registered when the import started.
    var hosts: [String: HostTransformer] = [:]
    var options = ImportOptions()
    /// Per representation being mapped: its position in the enclosing array (for
    /// `@metadata.mapping.collectionIndex`) and the object it maps into (for `parentObject`).
    private var collectionIndexes: [Int?] = []
    private var objectsBeingMapped: [ObjectID] = []
    private var parentObjects: [ObjectID?] = []
    private var mappedCount = 0
    private var knownCount = 0
    /// Every object the import mapped, skipped as unmodified or reached by identity (not orphans).
    private var touched: Set<ObjectID> = []
    /// Objects whose mapping has connections, to connect once the payload is mapped.
    private var pendingConnections: [PendingConnection] = []

    private struct PendingConnection: Hashable {
        let object: ObjectID
        let mapping: Int
    }
    private var path = PayloadPath()
    private var depth = 0
    /// True while the representation at the top is a single object (where a target object applies).
    private var singleRoot = false
    /// Set once `options.targetObject` has been mapped into.
    private var targetTaken = false
    /// The representations being mapped, outermost first: `@parent.` key paths read from here.
    private var representations: [Reader.Node] = []
    /// The payload's root, for `@root.` key paths.
    private var documentRoot: Reader.Node?

    /// How deep mapped objects may nest (each nested relationship is one level). Bounds the
    /// recursion so hostile input gets an error instead of exhausting the stack.
    static var maxDepth: Int { 128 }

    /// The deepest `json` attribute value stored.
    static var maxValueDepth: Int { 256 }

    init(spec: CompiledSpec, reader: Reader, store: ObjectStore) {
        self.spec = spec
        self.reader = reader
        self.store = store
    }

    private var model: Model { spec.model }

    /// Maps the representations at the mapping's `rootPath` (or the root): an object or an array of
    /// objects (`null` elements are skipped). Returns the top-level objects in payload order.
    /// Maps the payload with each mapping in turn (each at its own `rootPath`), as one import.
    mutating func run(mappings references: [MappingRef], root: Reader.Node) throws(MappingError) -> [ObjectID] {
        var objects: [ObjectID] = []
        if let keyPaths = options.keyPaths {
            guard keyPaths.count == references.count else {
                throw MappingError(.misuse, "one key path per mapping: \(references.count) mappings, \(keyPaths.count) key paths")
            }
            var found = 0
            for (reference, keyPath) in zip(references, keyPaths) {
                guard let node = keyPath.map({ resolve(KeyPath($0), in: root) }) ?? root else { continue }
                found += 1
                if reader.kind(of: node) == .null { continue }
                documentRoot = root
                path = PayloadPath()
                for step in keyPath.map({ KeyPath($0).steps }) ?? [] { path.push(.key(step.key.name)) }
                singleRoot = reader.kind(of: node) != .array
                defer { singleRoot = false }
                objects += try mapEach(node, reference, create: true)
            }
            guard found > 0 || references.isEmpty else {
                throw MappingError(.mapping, "no mappable representations were found at the key paths searched: "
                                   + keyPaths.map { $0 ?? "(root)" }.joined(separator: ", "))
            }
        } else {
            for reference in references { objects += try run(mapping: reference, root: root) }
        }
        let connector = Connector(model: model)
        var connected = Set<PendingConnection>()
        for pending in pendingConnections where connected.insert(pending).inserted {
            for connection in spec.plan(pending.mapping)?.connections ?? [] {
                connector.connect(pending.object, connection, store: &store)
            }
        }
        // Tombstones: mapped objects that match their mapping's deletionPredicate are deleted.
        for pending in connected {
            guard let predicate = spec.plan(pending.mapping)?.deletionPredicate, store.contains(pending.object),
                  PredicateEvaluator(store: store).matches(pending.object, predicate) else { continue }
            try store.delete(pending.object, model: model)
        }
        if let scope = options.orphanScope { try deleteOrphans(scope.entity, scope.predicate) }
        options.onProgress?(mappedCount, knownCount)
        return objects
    }

    /// Deletes the objects in the scope that this import did not touch.
    private mutating func deleteOrphans(_ entityName: String, _ text: String?) throws(MappingError) {
        guard let entity = model.entity(named: entityName) else {
            throw MappingError(.name, "unknown entity \"\(entityName)\" for orphan deletion")
        }
        let predicate = try text.map { (text) throws(MappingError) in
            try CompiledPredicate.compile(text, entity: entity, model: model, arguments: [])
        }
        let reader = GraphReader(model: model, store: store)
        let evaluator = PredicateEvaluator(store: store)
        let orphans = reader.objects(of: entity).filter { object in
            !touched.contains(object) && (predicate.map { evaluator.matches(object, $0) } ?? true)
        }
        for orphan in orphans where store.contains(orphan) {
            try store.delete(orphan, model: model)
        }
    }

    private mutating func run(mapping reference: MappingRef, root: Reader.Node) throws(MappingError) -> [ObjectID] {
        documentRoot = root
        path = PayloadPath()
        var node = root
        let name = spec.name(of: reference)
        if let rootPath = rootPath(of: reference) {
            guard let found = resolve(rootPath, in: root) else {
                throw MappingError(.mapping, "the payload has nothing at rootPath \"\(rootPath)\" of mapping \"\(name)\"",
                                   path: path.text(adding: rootPath))
            }
            node = found
            for step in rootPath.steps { path.push(.key(step.key.name)) }
        }
        switch reader.kind(of: node) {
        case .null:
            throw MappingError(.type, "expected an object or an array of objects for mapping \"\(name)\", found null",
                               path: path.text())
        case .array:
            singleRoot = false
            return try mapEach(node, reference, create: true)
        default:
            singleRoot = true
            defer { singleRoot = false }
            // One representation at the top must be mapped: a dynamic mapping may not decline it.
            guard try choose(reference, for: node) != nil else {
                throw MappingError(.mapping, "dynamic mapping \"\(name)\" has no case for this representation",
                                   path: path.text())
            }
            return try mapEach(node, reference, create: true)
        }
    }

    private mutating func rootPath(of reference: MappingRef) -> KeyPath? {
        switch reference {
        case .plain(let index): spec.plan(index)?.rootPath
        case .dynamic(let index): spec.dynamicPlan(index)?.rootPath
        }
    }

    /// The plain mapping for one representation; `nil` when a dynamic mapping declines it.
    private mutating func choose(_ reference: MappingRef, for node: Reader.Node) throws(MappingError) -> MappingPlan? {
        switch reference {
        case .plain(let index):
            return spec.plan(index)
        case .dynamic(let index):
            guard let dynamic = spec.dynamicPlan(index) else { return nil }
            if !dynamic.matchers.isEmpty {
                let representation = try reader.copyValue(of: node, depthLimit: Self.maxValueDepth)
                let evaluator = PredicateEvaluator(store: nil)
                if let matched = dynamic.matchers.first(where: { evaluator.matches(representation: representation, $0.predicate) }) {
                    return matched.mapping.flatMap(spec.plan)
                }
            }
            let probe = dynamic.keyPath.map { resolve($0, in: node) } ?? node
            if let probe, let text = caseText(probe), let chosen = dynamic.cases[text] {
                return chosen.flatMap(spec.plan)
            }
            let type = if let probe { typeName(probe) } else { "null" }
            if !dynamic.byType.isEmpty, let chosen = dynamic.byType[type] {
                return chosen.flatMap(spec.plan)
            }
            return dynamic.defaultMapping.flatMap(spec.plan)
        }
    }

    /// A scalar as the text dynamic cases are written in; `nil` for objects and arrays.
    private mutating func caseText(_ node: Reader.Node) -> String? {
        switch reader.kind(of: node) {
        case .string: reader.string(of: node)
        case .integer: String(reader.integer(of: node))
        case .real: JSONValue.real(reader.real(of: node)).text()
        case .true: "true"
        case .false: "false"
        case .null: "null"
        case .object, .array: nil
        }
    }

    private func typeName(_ node: Reader.Node) -> String {
        switch reader.kind(of: node) {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .integer, .real: "number"
        case .true, .false: "boolean"
        case .null: "null"
        }
    }

    /// Maps every representation in `node`: the elements of an array, the members of an object
    /// when the mapping forces a collection, else `node` itself. `null` elements and representations
    /// a dynamic mapping declines are skipped.
    private mutating func mapEach(_ node: Reader.Node, _ reference: MappingRef,
                                  create: Bool) throws(MappingError) -> [ObjectID] {
        var objects: [ObjectID] = []
        if reader.kind(of: node) == .array {
            let count = reader.count(of: node)
            knownCount += count
            options.onEvent?(.willMapCollection(mapping: spec.name(of: reference), count: count))
            objects.reserveCapacity(count)
            if count >= 64, case .plain(let index) = reference, let plan = spec.plan(index),
               model.entities.indices.contains(plan.entity), let map = model.entities[plan.entity].identityMap {
                store.reserve(map: map, additional: count)
            }
            try reader.forEachElement(of: node) { (index, element) throws(MappingError) in
                guard reader.kind(of: element) != .null, let mapping = try choose(reference, for: element) else { return }
                path.push(.index(index))
                if let object = try mapObject(element, mapping, create: create, index: index) { objects.append(object) }
                path.pop()
            }
            options.onEvent?(.didMapCollection(mapping: spec.name(of: reference), count: objects.count))
            return objects
        }
        guard let mapping = try choose(reference, for: node) else { return [] }
        if reader.kind(of: node) == .object && mapping.forcesCollection {
            var members: [(String, Reader.Node)] = []
            try reader.forEachMember(of: node) { (key, value) throws(MappingError) in members.append((key, value)) }
            knownCount += members.count
            options.onEvent?(.willMapCollection(mapping: mapping.name, count: members.count))
            for (index, (key, value)) in members.enumerated() where reader.kind(of: value) != .null {
                path.push(.key(key))
                if let object = try mapObject(value, mapping, create: create, key: key, index: index) {
                    objects.append(object)
                }
                path.pop()
            }
            options.onEvent?(.didMapCollection(mapping: mapping.name, count: objects.count))
        } else {
            knownCount += 1
            if let object = try mapObject(node, mapping, create: create) { objects.append(object) }
        }
        return objects
    }

    // MARK: Objects

    /// Maps one representation; `nil` only when `create` is false and no object has its identity.
    private mutating func mapObject(_ node: Reader.Node, _ mapping: MappingPlan, create: Bool = true,
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
        defer {
            representations.removeLast()
            collectionIndexes.removeLast()
            parentObjects.removeLast()
        }
        options.onEvent?(.willMapObject(mapping: mapping.name))
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
            if let record = store.record(object) {
                if options.orphanScope != nil { for links in record.links { touched.formUnion(links.targets) } }
            }
            if let target { try registerTarget(target) }
            return finish(object, mapping)
        }
        var present = 0
        if let keyValue, let attribute = mapping.keyAttribute {
            store.setValue(keyValue, of: object, attribute: attribute)
            present += 1
        }
        for attributeMapping in mapping.attributes {
            if try applyAttribute(attributeMapping, from: node, to: object, entity: entity, isNew: isNew,
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
        if isNew && mapping.identifiesByScan { registerIfFree(object, entity) }
        if let target { try registerTarget(target) }
        return finish(object, mapping)
    }

    /// The target object for this representation: only the single top-level one, once, and only
    /// when the object is live and of the mapping's entity (or a sub-entity).
    private mutating func takeTarget(_ entity: Entity) -> ObjectID? {
        guard depth == 1, singleRoot, !targetTaken, let target = options.targetObject,
              let record = store.record(target), model.isKind(record.entity, of: entity.index) else { return nil }
        targetTaken = true
        return target
    }

    private mutating func identityEntry(of object: ObjectID) -> (map: Int, key: IdentityKey)? {
        guard let record = store.record(object), model.entities.indices.contains(record.entity) else { return nil }
        return store.identity(of: record, model.entities[record.entity])
    }

    /// Back into its identity map under the identity it now has, which must be free (as for `mapping_set`).
    private mutating func registerTarget(_ target: ObjectID) throws(MappingError) {
        guard let record = store.record(target), model.entities.indices.contains(record.entity) else { return }
        try GraphEditor(model: model).register(target, model.entities[record.entity], in: &store)
    }

    /// Records a mapped object: its connections and deletion predicate for later, events, progress.
    private mutating func finish(_ object: ObjectID, _ mapping: MappingPlan) -> ObjectID {
        if options.orphanScope != nil { touched.insert(object) }
        if !mapping.connections.isEmpty || mapping.deletionPredicate != nil {
            pendingConnections.append(PendingConnection(object: object, mapping: mapping.index))
        }
        options.onEvent?(.didMapObject(mapping: mapping.name, object: object))
        mappedCount += 1
        if let onProgress = options.onProgress, mappedCount % options.progressInterval == 0 {
            onProgress(mappedCount, knownCount)
        }
        return object
    }

    /// The object the representation identifies: found in the identity map, or created with its
    /// identification values set and registered. Without complete identification values (no
    /// identification, an id missing or null) a new object is created and not registered. With
    /// `create` false, a representation that finds no object gives `nil`.
    private mutating func findOrCreate(_ node: Reader.Node, _ mapping: MappingPlan, _ entity: Entity,
                                       keyValue: AttributeValue?, create: Bool) throws(MappingError) -> (ObjectID, isNew: Bool)? {
        if mapping.identifiesByScan {
            let values = mapping.identification.isEmpty ? nil : try identificationValues(node, mapping, entity, keyValue: keyValue)
            return findByScan(mapping, entity, values: values, create: create)
        }
        guard let map = entity.identityMap,
              let values = try identificationValues(node, mapping, entity, keyValue: keyValue) else {
            return create ? (store.create(entity), true) : nil
        }
        return try findOrCreate(entity, map: map, values: values, create: create)
    }

    private mutating func findOrCreate(_ entity: Entity, map: Int, values: [AttributeValue],
                                       create: Bool) throws(MappingError) -> (ObjectID, isNew: Bool)? {
        let key = IdentityKey(values)
        if let existing = store.lookup(map: map, key: key), let existingEntity = store.entityIndex(of: existing) {
            guard model.isKind(existingEntity, of: entity.index) else {
                let found = model.entities.indices.contains(existingEntity) ? model.entities[existingEntity].name : "?"
                throw MappingError(.mapping, "the object with this identity is a \(found), not a \(entity.name)",
                                   path: path.text(), attribute: entity.name)
            }
            return (existing, false)
        }
        guard create else { return nil }
        let object = store.create(entity)
        for (attribute, value) in zip(entity.identification, values) {
            store.setValue(value, of: object, attribute: attribute)
        }
        store.register(object, map: map, key: key)
        return (object, true)
    }

    /// A mapping's own identification or an identificationPredicate: the first object of the entity
    /// with these values that matches the predicate (RestKit's fetch, then filter), else a new one,
    /// registered in the entity's identity map once its attributes are set, if its identity is free.
    private mutating func findByScan(_ mapping: MappingPlan, _ entity: Entity, values: [AttributeValue]?,
                                     create: Bool) -> (ObjectID, isNew: Bool)? {
        if let values {
            let evaluator = PredicateEvaluator(store: store)
            for candidate in model.entities where model.isKind(candidate.index, of: entity.index) {
                guard store.members.indices.contains(candidate.index) else { continue }
                for object in store.members[candidate.index] {
                    guard let record = store.record(object) else { continue }
                    let same = zip(mapping.identification, values).allSatisfy { attribute, value in
                        record.values.indices.contains(attribute) && record.values[attribute] == value
                    }
                    if same, mapping.identificationPredicate.map({ evaluator.matches(object, $0) }) ?? true {
                        return (object, false)
                    }
                }
            }
        }
        guard create else { return nil }
        let object = store.create(entity)
        for (attribute, value) in zip(mapping.identification, values ?? []) {
            store.setValue(value, of: object, attribute: attribute)
        }
        return (object, true)
    }

    /// Registers a new object in its entity's identity map if its identity is complete and free.
    private mutating func registerIfFree(_ object: ObjectID, _ entity: Entity) {
        guard let record = store.record(object), let identity = store.identity(of: record, entity),
              store.lookup(map: identity.map, key: identity.key) == nil else { return }
        store.register(object, map: identity.map, key: identity.key)
    }

    /// `modificationAttribute`: true when the stored value is not older than the incoming one
    /// (numbers and dates: stored ≥ incoming; other types: equal).
    private mutating func isUnmodified(_ object: ObjectID, _ node: Reader.Node, _ mapping: MappingPlan,
                              _ entity: Entity) throws(MappingError) -> Bool {
        guard let attribute = mapping.modificationAttribute, let record = store.record(object),
              record.values.indices.contains(attribute), let stored = record.values[attribute],
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

    private mutating func identificationValues(_ node: Reader.Node, _ mapping: MappingPlan, _ entity: Entity,
                                               keyValue: AttributeValue?) throws(MappingError) -> [AttributeValue]? {
        var values: [AttributeValue] = []
        values.reserveCapacity(mapping.identification.count)
        for (attribute, source) in zip(mapping.identification, mapping.identitySources) {
            if attribute == mapping.keyAttribute, let keyValue {
                values.append(keyValue)
                continue
            }
            guard let source, mapping.attributes.indices.contains(source) else { return nil }
            let attributeMapping = mapping.attributes[source]
            guard let (found, keyPath) = firstPresent(attributeMapping.alternatives, in: node),
                  case .value(let value) = try coerce(found, attributeMapping, entity, keyPath) else {
                return nil
            }
            values.append(value)
        }
        return values
    }

    /// The member key of a representation (dynamic keys), coerced to the key attribute's type.
    private mutating func representationKey(_ key: String?, _ mapping: MappingPlan,
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

    // MARK: Attributes

    /// Sets one attribute from the representation; returns whether its key was present.
    private mutating func applyAttribute(_ attributeMapping: AttributeMappingPlan, from node: Reader.Node,
                                         to object: ObjectID, entity: Entity, isNew: Bool,
                                         defaults: Bool) throws(MappingError) -> Bool {
        let attribute = attributeMapping.attribute
        guard let (found, keyPath) = firstPresent(attributeMapping.alternatives, in: node) else {
            if defaults, isNew, entity.attributes.indices.contains(attribute),
               let value = entity.attributes[attribute].defaultValue {
                store.setValue(value, of: object, attribute: attribute)
            }
            return false
        }
        switch try coerce(found, attributeMapping, entity, keyPath) {
        case .value(let value): store.setValue(value, of: object, attribute: attribute)
        case .null: store.setValue(nil, of: object, attribute: attribute)
        case .skip: break
        }
        return true
    }

    /// The incoming value as the attribute's type. The common case — a payload value, no
    /// transformer — takes a small function of its own: the transformer path cannot be specialized
    /// across modules, and would otherwise drag the common case into running unspecialized.
    private mutating func coerce(_ found: Found, _ attributeMapping: AttributeMappingPlan, _ entity: Entity,
                        _ keyPath: KeyPath) throws(MappingError) -> Coerced {
        if case .node(let node) = found, attributeMapping.transformer == nil {
            return try coerceNode(node, attributeMapping, entity, keyPath)
        }
        return try coerceTransformed(found, attributeMapping, entity, keyPath)
    }

    /// A payload value as the attribute's type, without a transformer.
    private mutating func coerceNode(_ node: Reader.Node, _ attributeMapping: AttributeMappingPlan, _ entity: Entity,
                            _ keyPath: KeyPath) throws(MappingError) -> Coerced {
        guard entity.attributes.indices.contains(attributeMapping.attribute) else { return .skip }
        let type = entity.attributes[attributeMapping.attribute].type
        do throws(MappingError) {
            return try Coercion.coerce(node, reader: reader, to: type, depthLimit: Self.maxValueDepth)
        } catch {
            throw located(error, attributeMapping, entity, keyPath)
        }
    }

    /// `error` with the JSON path and the attribute it happened at.
    private mutating func located(_ error: MappingError, _ attributeMapping: AttributeMappingPlan, _ entity: Entity,
                         _ keyPath: KeyPath) -> MappingError {
        let declared = entity.attributes[attributeMapping.attribute]
        let where_ = path.text(adding: keyPath)
        return MappingError(error.code, "cannot map \(where_) into \(entity.name).\(declared.name) (\(declared.type.rawValue)): \(error.message)",
                            path: where_, attribute: entity.name + "." + declared.name)
    }

    /// The incoming value as the attribute's type: transformed first if the mapping names a
    /// transformer, then coerced. Errors name the JSON path and the attribute.
    private mutating func coerceTransformed(_ found: Found, _ attributeMapping: AttributeMappingPlan, _ entity: Entity,
                        _ keyPath: KeyPath) throws(MappingError) -> Coerced {
        guard entity.attributes.indices.contains(attributeMapping.attribute) else { return .skip }
        let declared = entity.attributes[attributeMapping.attribute]
        do throws(MappingError) {
            let input: JSONValue
            switch found {
            case .node(let node):
                guard attributeMapping.transformer != nil else {
                    return try Coercion.coerce(node, reader: reader, to: declared.type, depthLimit: Self.maxValueDepth)
                }
                input = try reader.copyValue(of: node, depthLimit: Self.maxValueDepth)
            case .value(let value):
                input = value
            }
            guard let transformer = attributeMapping.transformer else {
                return try Coercion.coerce(input, reader: JSONValueReader(), to: declared.type, depthLimit: Self.maxValueDepth)
            }
            switch try transformer.forward(input, hosts: hosts) {
            case .json(let value):
                return try Coercion.coerce(value, reader: JSONValueReader(), to: declared.type, depthLimit: Self.maxValueDepth)
            case .date(let date):
                switch declared.type {
                case .date: return .value(.date(date))
                case .string, .json: return .value(declared.type == .string ? .string(date.iso8601) : .json(.string(date.iso8601)))
                default: throw MappingError(.type, "the transformer makes a date, which a \(declared.type.rawValue) attribute cannot hold")
                }
            }
        } catch {
            throw located(error, attributeMapping, entity, keyPath)
        }
    }

    // MARK: Relationships

    /// Maps and assigns one relationship; returns whether its key was present.
    private mutating func applyRelationship(_ relationshipMapping: RelationshipMappingPlan, from node: Reader.Node,
                                            to object: ObjectID, entity: Entity,
                                            nullifyMissing: Bool) throws(MappingError) -> Bool {
        let index = relationshipMapping.relationship
        guard entity.relationships.indices.contains(index) else { return false }
        let relationship = entity.relationships[index]
        if relationshipMapping.keyPath.anchor == .metadata {
            return try applyMetadataRelationship(relationshipMapping, to: object, relationship)
        }
        guard let target = resolve(relationshipMapping.keyPath, in: node) else {
            if nullifyMissing {
                try assign([], isNull: true, to: object, index, relationship, policy: relationshipMapping.assignment)
            }
            return false
        }
        for step in relationshipMapping.keyPath.steps { path.push(.key(step.key.name)) }
        defer { for _ in relationshipMapping.keyPath.steps { path.pop() } }
        // As in RestKit, the objects a dotted path passes through (`people` in `people.friends`)
        // count as representation levels for `@parent.` paths of the children.
        let intermediates = self.intermediates(of: relationshipMapping.keyPath, in: node)
        representations.append(contentsOf: intermediates)
        defer { representations.removeLast(intermediates.count) }

        var targets: [ObjectID] = []
        let create = !relationshipMapping.weak
        let isNull = reader.kind(of: target) == .null
        switch reader.kind(of: target) {
        case .null:
            break
        case .array where !relationship.toMany:
            throw MappingError(.type, "expected one object for the to-one relationship \(entity.name).\(relationship.name), found an array",
                               path: path.text(), attribute: entity.name + "." + relationship.name)
        default:
            if let nested = relationshipMapping.mapping {
                targets = try mapEach(target, nested, create: create)
            } else if reader.kind(of: target) == .array {
                try reader.forEachElement(of: target) { (position, element) throws(MappingError) in
                    guard reader.kind(of: element) != .null else { return }
                    path.push(.index(position))
                    if let found = try reference(element, relationship, create: create) { targets.append(found) }
                    path.pop()
                }
            } else if let found = try reference(target, relationship, create: create) {
                targets.append(found)
            }
        }
        try assign(targets, isNull: isNull, to: object, index, relationship, policy: relationshipMapping.assignment)
        return true
    }

    /// A relationship read from the import's metadata (`@metadata.custom`, RestKit's M6): the value is
    /// mapped by an importer over the Swift-held metadata, sharing this import's store.
    private mutating func applyMetadataRelationship(_ relationshipMapping: RelationshipMappingPlan, to object: ObjectID,
                                                    _ relationship: Relationship) throws(MappingError) -> Bool {
        guard let value = metadataValue(relationshipMapping.keyPath), let nested = relationshipMapping.mapping else {
            return false
        }
        var targets: [ObjectID] = []
        if case .null = value {
            // null clears, as in the payload
        } else {
            var metadataImporter = Importer<JSONValueReader>(spec: spec, reader: JSONValueReader(),
                                                             store: ObjectStore(model: spec.model, space: .placeholder))
            metadataImporter.hosts = hosts
            metadataImporter.options.metadata = options.metadata
            // The nesting continues there: a mapping that reads itself from metadata again ends in
            // MAPPING_EDEPTH, not in a stack overflow.
            metadataImporter.depth = depth
            metadataImporter.path = path
            swap(&metadataImporter.store, &store)
            defer { swap(&metadataImporter.store, &store) }
            targets = try metadataImporter.mapEach(value, nested, create: !relationshipMapping.weak)
        }
        try assign(targets, isNull: targets.isEmpty, to: object, relationshipMapping.relationship, relationship,
                   policy: relationshipMapping.assignment)
        return true
    }

    /// The object a bare identity value stands for: found, or created with only its identity set
    /// (`nil` when `create` is false and there is none).
    private mutating func reference(_ node: Reader.Node, _ relationship: Relationship,
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
        let found = try findOrCreate(destination, map: map, values: [value], create: create)?.0
        if let found, options.orphanScope != nil { touched.insert(found) }
        return found
    }

    /// Combines the mapped targets with the relationship's current value by the assignment policy
    /// (FastEasyMapping's semantics) and sets the result, inverses following. The replace policies
    /// then delete the old objects that are not in the new value (`old − new`, so an object that
    /// comes again is never deleted); their delete rules apply.
    private mutating func assign(_ targets: [ObjectID], isNull: Bool, to object: ObjectID, _ index: Int,
                                 _ relationship: Relationship, policy: AssignmentPolicy) throws(MappingError) {
        // The current targets matter only to the merging and replacing policies; reading them costs
        // a copy of the record, so plain assignment (the common case) skips it.
        let needsCurrent = policy == .collectionMerge || policy == .objectReplace || policy == .collectionReplace
        let current = needsCurrent ? currentTargets(of: object, index) : []
        var result = targets
        switch policy {
        case .assign, .objectReplace, .collectionReplace:
            break
        case .objectMerge:
            if targets.isEmpty { return }
        case .collectionMerge:
            if isNull { return }
            result = current + targets
        }
        if relationship.toMany {
            store.setToMany(object, relationship: index, to: result, model: model)
        } else {
            store.setToOne(object, relationship: index, to: result.first, model: model)
        }
        guard policy == .objectReplace || policy == .collectionReplace else { return }
        try deleteReplaced(current, keeping: result)
    }

    /// The replace policies' deletion of `old − new`, delete rules applied.
    private mutating func deleteReplaced(_ old: [ObjectID], keeping new: [ObjectID]) throws(MappingError) {
        let kept = Set(new)
        for object in old where !kept.contains(object) {
            try store.delete(object, model: model)
        }
    }

    private mutating func currentTargets(of object: ObjectID, _ index: Int) -> [ObjectID] {
        guard let record = store.record(object), record.links.indices.contains(index) else { return [] }
        return record.links[index].targets.filter { store.contains($0) }
    }

    // MARK: Key paths

    /// The node at `keyPath` below `node` (or below a parent representation or the payload's root,
    /// for `@parent.`/`@root.` paths); `nil` when a step is missing or lands on `null` midway.
    private mutating func resolve(_ keyPath: KeyPath, in node: Reader.Node) -> Reader.Node? {
        if let key = keyPath.singleKey, reader.kind(of: node) == .object {
            return reader.member(of: node, key: key)
        }
        var current = node
        switch keyPath.anchor {
        case .current:
            break
        case .root:
            guard let documentRoot else { return nil }
            current = documentRoot
        case .parent(let levels):
            let position = representations.count - 1 - levels
            guard representations.indices.contains(position) else { return nil }
            current = representations[position]
        case .metadata:
            return nil  // metadata is not part of the payload: see `metadataValue`
        }
        for step in keyPath.steps {
            switch reader.kind(of: current) {
            case .object:
                guard let next = reader.member(of: current, key: step.key) else { return nil }
                current = next
            case .array:
                guard let index = step.index, let next = reader.element(of: current, at: index) else { return nil }
                current = next
            default:
                return nil
            }
        }
        return current
    }

    /// The nodes a relationship's key path passes through before its last step.
    private mutating func intermediates(of keyPath: KeyPath, in node: Reader.Node) -> [Reader.Node] {
        guard keyPath.anchor == .current, keyPath.steps.count > 1 else { return [] }
        var nodes: [Reader.Node] = []
        var current = node
        for step in keyPath.steps.dropLast() {
            guard reader.kind(of: current) == .object, let next = reader.member(of: current, key: step.key) else { break }
            nodes.append(next)
            current = next
        }
        return nodes
    }

    /// A value found for an attribute: a node of the payload, or a value from the metadata.
    /// What an attribute's key path found. Internal, not private, like everything the importer's
    /// hot path touches: cross-module optimization cannot carry a function that names a private
    /// declaration into MappingJSON, which then runs it unspecialized, looking up generic metadata
    /// at every call (measured: 6% of an import's instructions for this one type).
    typealias Found = FoundValue<Reader.Node>

    private mutating func firstPresent(_ alternatives: [KeyPath], in node: Reader.Node) -> (Found, KeyPath)? {
        for keyPath in alternatives {
            if keyPath.anchor == .metadata {
                if let value = metadataValue(keyPath) { return (.value(value), keyPath) }
            } else if let found = resolve(keyPath, in: node) {
                return (.node(found), keyPath)
            }
        }
        return nil
    }

    /// `@metadata.<path>`: the engine's own `mapping.collectionIndex` and `mapping.parentObject.<attribute>`,
    /// else the caller's metadata.
    private mutating func metadataValue(_ keyPath: KeyPath) -> JSONValue? {
        let names = keyPath.steps.map(\.key.name)
        if names == ["mapping", "collectionIndex"] {
            guard let index = collectionIndexes.last else { return nil }
            return index.map { .integer(Int64($0)) } ?? .null
        }
        if names.count == 3, names[0] == "mapping", names[1] == "parentObject" {
            guard let parent = parentObjects.last ?? nil, let record = store.record(parent),
                  model.entities.indices.contains(record.entity),
                  let attribute = model.entities[record.entity].attributeIndex(named: names[2]),
                  record.values.indices.contains(attribute) else { return nil }
            return record.values[attribute]?.jsonValue ?? .null
        }
        var current = options.metadata
        for name in names {
            guard let next = current[name] else { return nil }
            current = next
        }
        return current
    }
}

/// A value found at a key path: a node of the payload, or a value from elsewhere (metadata).
enum FoundValue<Node> {
    case node(Node)
    case value(JSONValue)
}
