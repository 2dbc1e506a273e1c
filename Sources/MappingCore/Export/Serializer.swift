/// Writes objects back out through a mapping, in reverse: each attribute goes to the first key
/// path of its mapping (nested key paths rebuild nested objects), relationships are written as
/// nested representations through their mappings, dates as `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
/// An object already being written further up the same branch is not written again (a cycle
/// through inverses would otherwise never end).
package struct Serializer {
    let spec: CompiledSpec
    let store: ObjectStore
    let options: SerializeOptions
    package var hosts: [String: HostTransformer] = [:]
    private var visiting: Set<ObjectID> = []
    private var depth = 0

    package init(spec: CompiledSpec, store: ObjectStore, options: SerializeOptions) {
        self.spec = spec
        self.store = store
        self.options = options
    }

    /// One object (`asList == false`) or a list, wrapped in the mapping's `rootPath` unless asked not to.
    package mutating func document(_ objects: [ObjectID], mapping reference: MappingRef, asList: Bool) throws(MappingError) -> SerializedJSON {
        var body: SerializedJSON
        if asList {
            body = try collection(objects, reference)
        } else if let object = objects.first {
            let mapping = try plan(for: object, reference)
            body = mapping.keyAttribute != nil ? try collection([object], reference) : try representation(of: object, mapping)
        } else {
            body = .value(.null)
        }
        let rootPath: KeyPath? = switch reference {
        case .plain(let index): spec.plan(index)?.rootPath
        case .dynamic(let index): spec.dynamicPlan(index)?.rootPath
        }
        if let rootPath, !options.contains(.omitRootPath) {
            for step in rootPath.steps.reversed() { body = .object([(step.key.name, body)]) }
        }
        return body
    }

    /// The plain mapping that writes `object`: the mapping itself, or for a dynamic mapping the first
    /// of its mappings for the object's own entity (else for an ancestor of it).
    private func plan(for object: ObjectID, _ reference: MappingRef) throws(MappingError) -> MappingPlan {
        guard let kind = store.entityIndex(of: object) else {
            throw MappingError(.stale, "object \(object) was deleted or belongs to another context")
        }
        switch reference {
        case .plain(let index):
            if let plan = spec.plan(index) { return plan }
        case .dynamic(let index):
            let candidates = (spec.dynamicPlan(index)?.candidates ?? []).compactMap(spec.plan)
            if let exact = candidates.first(where: { $0.entity == kind }) { return exact }
            if let inherited = candidates.first(where: { spec.model.isKind(kind, of: $0.entity) }) {
                return inherited
            }
        }
        let entity = spec.model.entities.indices.contains(kind) ? spec.model.entities[kind].name : "?"
        throw MappingError(.type, "mapping \"\(spec.name(of: reference))\" has no mapping that writes a \(entity)")
    }

    private mutating func representation(of object: ObjectID, _ mapping: MappingPlan) throws(MappingError) -> SerializedJSON {
        guard let kind = store.entityIndex(of: object) else {
            throw MappingError(.stale, "object \(object) was deleted or belongs to another context")
        }
        guard spec.model.isKind(kind, of: mapping.entity), spec.model.entities.indices.contains(kind) else {
            let name = spec.model.entities.indices.contains(kind) ? spec.model.entities[kind].name : "?"
            throw MappingError(.type, "mapping \"\(mapping.name)\" cannot write a \(name)")
        }
        let entity = spec.model.entities[kind]
        depth += 1
        defer { depth -= 1 }
        guard depth <= Importer<JSONValueReader>.maxDepth else {
            throw MappingError(.depth, "objects nested more than \(Importer<JSONValueReader>.maxDepth) levels deep")
        }
        visiting.insert(object)
        defer { visiting.remove(object) }

        var members: [(key: String, value: SerializedJSON)] = []
        var whole: SerializedJSON?
        var written = Set<Int>()
        for attributeMapping in mapping.attributes {
            let attribute = attributeMapping.attribute
            guard written.insert(attribute).inserted, entity.attributes.indices.contains(attribute),
                  let keyPath = attributeMapping.alternatives.first, keyPath.isWritable else { continue }
            let stored = store.attributeValue(of: object, attribute)
            // A `json` value is written as the text it is kept as (not parsed into a tree and written again).
            var value: SerializedJSON? = switch stored {
            case .json(let text)?: .text(text)
            case let other?: .value(other.jsonValue)
            case nil: nil
            }
            if let transformer = attributeMapping.transformer, let stored {
                guard let reversed = try transformer.reverse(stored, hosts: hosts) else { continue }
                value = .value(reversed)
            }
            if keyPath.isSelf {
                whole = value ?? .value(.null)
                continue
            }
            if value == nil && !options.contains(.includeNulls) { continue }
            Self.insert(value ?? .value(.null), at: keyPath.steps[...], into: &members)
        }
        if let whole { return whole }
        for relationshipMapping in mapping.relationships {
            let index = relationshipMapping.relationship
            guard let links = store.links(of: object, index) else { continue }
            var value: SerializedJSON?
            switch links {
            case .one(let target):
                if let target, store.contains(target) {
                    value = try element(target, relationshipMapping)
                } else if options.contains(.includeNulls) {
                    value = .value(.null)
                }
            case .many(let list):
                let live = list.ids.filter(store.contains)
                if let nested = relationshipMapping.mapping {
                    value = try collection(live.filter { !visiting.contains($0) }, nested)
                } else {
                    var elements: [SerializedJSON] = []
                    for target in live {
                        if let written = try element(target, relationshipMapping) { elements.append(written) }
                    }
                    value = .array(elements)
                }
            case .unread:
                continue  // never from `links(of:)`, which reads such a list as empty and notes it
            }
            guard let value else { continue }
            if relationshipMapping.keyPath.isSelf, let nested = value.members {
                for member in nested {
                    Self.insert(member.value, at: [KeyPath.Step(key: PlanKey(member.key), index: nil)][...], into: &members)
                }
            } else {
                Self.insert(value, at: relationshipMapping.keyPath.steps[...], into: &members)
            }
        }
        return .object(members)
    }

    /// Several objects through one mapping: an array, or for a mapping with dynamic keys an object
    /// whose member names are the objects' key attribute (`{"blake": {…}, "rachit": {…}}`).
    private mutating func collection(_ objects: [ObjectID], _ reference: MappingRef) throws(MappingError) -> SerializedJSON {
        guard case .plain(let index) = reference, let mapping = spec.plan(index), let keyAttribute = mapping.keyAttribute else {
            var elements: [SerializedJSON] = []
            elements.reserveCapacity(objects.count)
            for object in objects { elements.append(try representation(of: object, try plan(for: object, reference))) }
            return .array(elements)
        }
        var members: [(key: String, value: SerializedJSON)] = []
        for object in objects {
            guard let kind = store.entityIndex(of: object), spec.model.entities.indices.contains(kind),
                  spec.model.entities[kind].attributes.indices.contains(keyAttribute) else { continue }
            let key: String
            switch store.attributeValue(of: object, keyAttribute) {
            case .string(let text)?: key = text
            case let value?: key = value.jsonText
            case nil: key = ""
            }
            members.append((key, try representation(of: object, mapping)))
        }
        return .object(members)
    }

    /// One target of a relationship as written: its representation through the relationship's
    /// mapping (`nil` if it is already being written on this branch), or its identity value when the
    /// relationship refers to objects by identity.
    private mutating func element(_ target: ObjectID, _ relationshipMapping: RelationshipMappingPlan) throws(MappingError) -> SerializedJSON? {
        if let nested = relationshipMapping.mapping {
            return visiting.contains(target) ? nil : try representation(of: target, try plan(for: target, nested))
        }
        guard let kind = store.entityIndex(of: target), spec.model.entities.indices.contains(kind) else { return nil }
        let entity = spec.model.entities[kind]
        guard let attribute = entity.identification.first, entity.attributes.indices.contains(attribute) else { return nil }
        return .value(store.attributeValue(of: target, attribute)?.jsonValue ?? .null)
    }

    /// Puts `value` at the key path `steps` inside `members`, creating intermediate objects and
    /// merging with ones already there. A numeric step after the first writes into an array at that
    /// position (`tags.0`), padding with nulls, so positional mappings read back as arrays.
    private static func insert(_ value: SerializedJSON, at steps: ArraySlice<KeyPath.Step>,
                               into members: inout [(key: String, value: SerializedJSON)]) {
        guard let first = steps.first else { return }
        let key = first.key.name
        let existing = members.firstIndex(where: { $0.key == key })
        var slot = existing.map { members[$0].value } ?? .value(.null)
        place(value, at: steps.dropFirst(), into: &slot)
        if let existing { members[existing].value = slot } else { members.append((key, slot)) }
    }

    /// Writes `value` at `steps` below `container` (an object or an array, created as needed).
    private static func place(_ value: SerializedJSON, at steps: ArraySlice<KeyPath.Step>, into container: inout SerializedJSON) {
        guard let step = steps.first else {
            container = value
            return
        }
        if let index = step.index, index < 10_000 {
            var elements = container.elements ?? []
            while elements.count <= index { elements.append(.value(.null)) }
            place(value, at: steps.dropFirst(), into: &elements[index])
            container = .array(elements)
            return
        }
        var members = container.members ?? []
        insert(value, at: steps, into: &members)
        container = .object(members)
    }
}
