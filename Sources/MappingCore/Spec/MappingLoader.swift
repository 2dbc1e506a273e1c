/// Loads the `mappings` section into `MappingPlan`s, resolving every name against the model.
enum MappingLoader {
    /// Mapping keys that later versions implement; named so the error says so instead of "unknown".
    private static let laterMappingKeys: Set<String> = [
    ]

    /// The names a mapping can refer to, resolved before any plan is built (mappings may refer to
    /// each other in any order, and to themselves).
    private struct Names {
        var plain: [String: Int] = [:]
        var dynamic: [String: Int] = [:]
        var entityOfPlain: [Int] = []
        var dynamicPlans: [DynamicMappingPlan] = []
    }

    static func load(_ value: JSONValue, model: Model) throws(MappingError) -> ([MappingPlan], [DynamicMappingPlan]) {
        let section = try SpecObject(value, path: "$.mappings")
        guard !section.members.isEmpty else {
            throw MappingError(.spec, "the spec declares no mappings", path: section.path)
        }
        var names = Names()
        var plainObjects: [(String, SpecObject)] = []
        var dynamicObjects: [(String, SpecObject)] = []
        for member in section.members {
            let object = try SpecObject(member.value, path: section.path(member.key))
            if object["dynamic"] != nil {
                names.dynamic[member.key] = dynamicObjects.count
                dynamicObjects.append((member.key, object))
                continue
            }
            try object.allowKeys(["entity", "rootPath", "attributes", "relationships", "missingAttributes",
                                  "missingRelationships", "forceCollectionMapping", "keyOfRepresentation",
                                  "connections", "identification", "identificationPredicate", "modificationAttribute",
                                  "deletionPredicate", "optional"],
                                 later: laterMappingKeys)
            guard let entityName = try object.string("entity") else {
                throw MappingError(.spec, "missing required key \"entity\"", path: object.path)
            }
            guard let entity = model.entityIndex(named: entityName) else {
                throw model.unknownEntity(entityName, code: .spec, path: object.path("entity"))
            }
            names.plain[member.key] = plainObjects.count
            names.entityOfPlain.append(entity)
            plainObjects.append((member.key, object))
        }
        for (name, object) in dynamicObjects {
            names.dynamicPlans.append(try dynamicPlan(object, name: name, names: names))
        }
        var plans: [MappingPlan] = []
        for (index, (name, object)) in plainObjects.enumerated() {
            plans.append(try plan(object, name: name, index: index, entity: model.entities[names.entityOfPlain[index]],
                                  model: model, names: names))
        }
        return (plans, names.dynamicPlans)
    }

    private static func dynamicPlan(_ object: SpecObject, name: String, names: Names) throws(MappingError) -> DynamicMappingPlan {
        try object.allowKeys(["dynamic", "rootPath"])
        let spec = try SpecObject(try object.required("dynamic"), path: object.path("dynamic"))
        try spec.allowKeys(["keyPath", "cases", "byType", "default", "matchers"])
        var candidates: [Int] = []
        func target(_ value: JSONValue, _ path: String) throws(MappingError) -> Int? {
            if case .null = value { return nil }
            guard case .string(let mappingName) = value else {
                throw MappingError(.spec, "expected a mapping name or null", path: path)
            }
            guard let index = names.plain[mappingName] else {
                throw MappingError(.spec, names.dynamic[mappingName] != nil
                                   ? "a dynamic mapping chooses among plain mappings, not \"\(mappingName)\""
                                   : "unknown mapping \"\(mappingName)\"", path: path)
            }
            if !candidates.contains(index) { candidates.append(index) }
            return index
        }
        var cases: [String: Int?] = [:]
        if let value = spec["cases"] {
            let section = try SpecObject(value, path: spec.path("cases"))
            for member in section.members { cases[member.key] = try target(member.value, section.path(member.key)) }
        }
        var byType: [String: Int?] = [:]
        if let value = spec["byType"] {
            let section = try SpecObject(value, path: spec.path("byType"))
            let kinds: Set = ["object", "array", "string", "number", "boolean", "null"]
            for member in section.members {
                guard kinds.contains(member.key) else {
                    throw MappingError(.spec, "unknown JSON type \"\(member.key)\"" + NameHint.hint(for: member.key, among: Array(kinds), kind: "types"),
                                       path: section.path(member.key))
                }
                byType[member.key] = try target(member.value, section.path(member.key))
            }
        }
        var matchers: [(predicate: CompiledPredicate, mapping: Int?)] = []
        if let value = spec["matchers"] {
            guard case .array(let elements) = value else {
                throw MappingError(.spec, "expected an array of {\"predicate\": …, \"mapping\": …}", path: spec.path("matchers"))
            }
            for (offset, element) in elements.enumerated() {
                let matcher = try SpecObject(element, path: JSONPathText.appending(spec.path("matchers"), index: offset))
                try matcher.allowKeys(["predicate", "mapping"])
                guard let text = try matcher.string("predicate") else {
                    throw MappingError(.spec, "missing required key \"predicate\"", path: matcher.path)
                }
                let predicate: CompiledPredicate
                do {
                    predicate = try CompiledPredicate.compileForRepresentations(text)
                } catch {
                    throw MappingError(.spec, "predicate: \(error.message)", path: matcher.path("predicate"), column: error.column)
                }
                matchers.append((predicate, try target(try matcher.required("mapping"), matcher.path("mapping"))))
            }
        }
        let keyPath = try spec.string("keyPath").map(KeyPath.init)
        if !cases.isEmpty && keyPath == nil {
            throw MappingError(.spec, "\"cases\" need a \"keyPath\" whose value chooses the case", path: spec.path)
        }
        let fallback = try spec["default"].flatMap { (value) throws(MappingError) in try target(value, spec.path("default")) }
        if cases.isEmpty && byType.isEmpty && fallback == nil && matchers.isEmpty {
            throw MappingError(.spec, "a dynamic mapping needs \"matchers\", \"cases\", \"byType\" or \"default\"", path: spec.path)
        }
        return DynamicMappingPlan(name: name, rootPath: try object.string("rootPath").map(KeyPath.init), keyPath: keyPath,
                                  matchers: matchers, cases: cases, byType: byType, defaultMapping: fallback, candidates: candidates)
    }

    private static func plan(_ object: SpecObject, name: String, index: Int, entity: Entity, model: Model,
                             names: Names) throws(MappingError) -> MappingPlan {
        let rootPath = try object.string("rootPath").map(KeyPath.init)
        var members = MemberTable.Builder()
        var attributes: [AttributeMappingPlan] = []
        if let section = object["attributes"] {
            let attributeSection = try SpecObject(section, path: object.path("attributes"))
            for member in attributeSection.members {
                let path = attributeSection.path(member.key)
                guard let attribute = entity.attributeIndex(named: member.key) else {
                    throw entity.unknownAttribute(member.key, code: .spec, path: path)
                }
                attributes.append(AttributeMappingPlan(attribute: attribute,
                                                       alternatives: try keyPaths(member.value, path: path, mapping: index, members: &members),
                                                       transformer: try transformer(member.value, path: path)))
            }
        }
        var relationships: [RelationshipMappingPlan] = []
        if let section = object["relationships"] {
            let relationshipSection = try SpecObject(section, path: object.path("relationships"))
            for member in relationshipSection.members {
                let path = relationshipSection.path(member.key)
                guard let relationshipIndex = entity.relationshipIndex(named: member.key) else {
                    throw entity.unknownRelationship(member.key, code: .spec, path: path)
                }
                let relationship = entity.relationships[relationshipIndex]
                let spec = try SpecObject(member.value, path: path)
                try spec.allowKeys(["keyPath", "mapping", "assignment", "weak"])
                var target: MappingRef?
                if let mappingName = try spec.string("mapping") {
                    let chosen: [Int]
                    if let index = names.plain[mappingName] {
                        target = .plain(index)
                        chosen = [index]
                    } else if let index = names.dynamic[mappingName], names.dynamicPlans.indices.contains(index) {
                        target = .dynamic(index)
                        chosen = names.dynamicPlans[index].candidates
                    } else {
                        throw MappingError(.spec, "unknown mapping \"\(mappingName)\""
                                           + NameHint.hint(for: mappingName, among: Array(names.plain.keys) + Array(names.dynamic.keys), kind: "mappings"),
                                           path: spec.path("mapping"))
                    }
                    for candidate in chosen where !model.isKind(names.entityOfPlain[candidate], of: relationship.destination) {
                        throw MappingError(.spec, "mapping \"\(mappingName)\" maps \"\(model.entities[names.entityOfPlain[candidate]].name)\", but \"\(member.key)\" holds \"\(model.entities[relationship.destination].name)\"",
                                           path: spec.path("mapping"))
                    }
                } else if model.entities[relationship.destination].identification.count != 1 {
                    throw MappingError(.spec, "without a \"mapping\", \"\(member.key)\" refers to objects by identity, so \"\(model.entities[relationship.destination].name)\" needs an identification of exactly one attribute",
                                       path: path)
                }
                let assignment = try policy(try spec.string("assignment"), relationship, path: spec.path("assignment"))
                let keyPathText = try spec.string("keyPath") ?? member.key
                relationships.append(RelationshipMappingPlan(relationship: relationshipIndex, keyPath: KeyPath(keyPathText, mapping: index, members: &members),
                                                             mapping: target, assignment: assignment,
                                                             weak: try spec.bool("weak") ?? false))
            }
        }
        var keyAttribute: Int?
        if let keyName = try object.string("keyOfRepresentation") {
            guard let attribute = entity.attributeIndex(named: keyName) else {
                throw entity.unknownAttribute(keyName, code: .spec, path: object.path("keyOfRepresentation"))
            }
            keyAttribute = attribute
        }
        var identification = entity.identification
        if let names = try object.names("identification") {
            identification = []
            for name in names {
                guard let attribute = entity.attributeIndex(named: name) else {
                    throw entity.unknownAttribute(name, code: .spec, path: object.path("identification"))
                }
                identification.append(attribute)
            }
        }
        let identitySources = identification.map { attribute in
            attributes.firstIndex(where: { $0.attribute == attribute })
        }
        let identificationPredicate = try predicate(object, "identificationPredicate", entity: entity, model: model)
        let optional = try optionalNames(object, entity: entity, attributes: attributes, relationships: relationships)
        var modificationAttribute: Int?
        if let name = try object.string("modificationAttribute") {
            guard let attribute = entity.attributeIndex(named: name), attributes.contains(where: { $0.attribute == attribute }) else {
                throw MappingError(.spec, "\"\(name)\" must be an attribute this mapping maps", path: object.path("modificationAttribute"))
            }
            modificationAttribute = attribute
        }
        return MappingPlan(name: name, index: index, entity: entity.index, rootPath: rootPath, attributes: attributes,
                           relationships: relationships, identitySources: identitySources,
                           mapsSelf: attributes.contains { $0.alternatives.contains(where: \.isSelf) },
                           defaultsForMissingAttributes: try choice(object, "missingAttributes", ["keep", "default"]) == "default",
                           nullifiesMissingRelationships: try choice(object, "missingRelationships", ["keep", "nullify"]) == "nullify",
                           forcesCollection: try object.bool("forceCollectionMapping") ?? (keyAttribute != nil),
                           keyAttribute: keyAttribute,
                           connections: try ConnectionLoader.load(object, entity: entity, model: model,
                                                                  mapped: Set(relationships.map(\.relationship))),
                           identification: identification,
                           identifiesByScan: identification != entity.identification || identificationPredicate != nil,
                           identificationPredicate: identificationPredicate,
                           modificationAttribute: modificationAttribute,
                           deletionPredicate: try predicate(object, "deletionPredicate", entity: entity, model: model),
                           optional: optional, members: MemberTable(keys: members.keys),
                           routes: attributes.map { AttributeRoute($0, entity) })
    }

    /// `"optional": ["body_html", …]`: attributes and relationships this mapping maps whose keys a
    /// whole payload may lack (an API's optional properties), so an audit does not warn about them.
    private static func optionalNames(_ object: SpecObject, entity: Entity, attributes: [AttributeMappingPlan],
                                      relationships: [RelationshipMappingPlan]) throws(MappingError) -> Set<String> {
        guard let names = try object.names("optional") else { return [] }
        let mapped = attributes.compactMap { entity.attributes.indices.contains($0.attribute) ? entity.attributes[$0.attribute].name : nil }
            + relationships.compactMap { entity.relationships.indices.contains($0.relationship) ? entity.relationships[$0.relationship].name : nil }
        for name in names where !mapped.contains(name) {
            throw MappingError(.spec, "\"\(name)\" in \"optional\" is not an attribute or relationship this mapping maps"
                               + NameHint.hint(for: name, among: mapped, kind: "mapped names"),
                               path: object.path("optional"))
        }
        return Set(names)
    }

    /// The assignment policy a relationship mapping names, checked against the relationship's
    /// cardinality (RestKit: "cannot union a one-to-one relationship").
    private static func policy(_ name: String?, _ relationship: Relationship,
                               path: String) throws(MappingError) -> AssignmentPolicy {
        guard let name else { return .assign }
        let policy: AssignmentPolicy
        switch name {
        case "union": policy = .collectionMerge
        case "replace": policy = relationship.toMany ? .collectionReplace : .objectReplace
        default:
            guard let named = AssignmentPolicy(rawValue: name) else {
                throw MappingError(.spec, "unknown assignment policy \"\(name)\" (expected assign, objectMerge, collectionMerge, union, objectReplace, collectionReplace or replace)",
                                   path: path)
            }
            policy = named
        }
        switch (policy, relationship.toMany) {
        case (.collectionMerge, false), (.collectionReplace, false):
            throw MappingError(.spec, "invalid assignment policy: cannot \(name == "union" ? "union" : "apply \(name) to") a to-one relationship", path: path)
        case (.objectMerge, true), (.objectReplace, true):
            throw MappingError(.spec, "invalid assignment policy: \(name) is for to-one relationships; use \(policy == .objectMerge ? "collectionMerge" : "collectionReplace")",
                               path: path)
        default:
            return policy
        }
    }

    /// A predicate kept in the spec, compiled against `entity`; its errors become spec errors.
    static func predicate(_ object: SpecObject, _ key: String, entity: Entity, model: Model) throws(MappingError) -> CompiledPredicate? {
        guard let text = try object.string(key) else { return nil }
        do {
            return try CompiledPredicate.compile(text, entity: entity, model: model, arguments: [])
        } catch {
            throw MappingError(.spec, "\(key): \(error.message)", path: object.path(key), column: error.column)
        }
    }

    /// The value of an optional key that must be one of `choices` (the first is the default).
    private static func choice(_ object: SpecObject, _ key: String, _ choices: [String]) throws(MappingError) -> String {
        guard let value = try object.string(key) else { return choices.first ?? "" }
        guard choices.contains(value) else {
            throw MappingError(.spec, "\"\(key)\" must be one of: \(choices.joined(separator: ", "))", path: object.path(key))
        }
        return value
    }

    /// The `"transformer"` of an attribute given in the long form, if any.
    private static func transformer(_ value: JSONValue, path: String) throws(MappingError) -> Transformer? {
        guard case .object = value, let spec = value["transformer"] else { return nil }
        return try Transformer.load(spec, path: JSONPathText.appending(path, key: "transformer"))
    }

    /// An attribute's source: a key path string, `null` (the representation itself), a list of
    /// alternatives (first present wins), or `{"keyPath": …}`.
    private static func keyPaths(_ value: JSONValue, path: String, mapping: Int,
                                 members: inout MemberTable.Builder) throws(MappingError) -> [KeyPath] {
        switch value {
        case .null:
            return [KeyPath("@self")]
        case .string(let text):
            return [KeyPath(text, mapping: mapping, members: &members)]
        case .array(let elements) where !elements.isEmpty:
            var alternatives: [KeyPath] = []
            for (offset, element) in elements.enumerated() {
                guard case .string(let text) = element else {
                    throw MappingError(.spec, "expected a key path string", path: JSONPathText.appending(path, index: offset))
                }
                alternatives.append(KeyPath(text, mapping: mapping, members: &members))
            }
            return alternatives
        case .object:
            let object = try SpecObject(value, path: path)
            try object.allowKeys(["keyPath", "transformer"])
            guard let keyPath = object["keyPath"] else {
                throw MappingError(.spec, "missing required key \"keyPath\"", path: path)
            }
            return try keyPaths(keyPath, path: object.path("keyPath"), mapping: mapping, members: &members)
        default:
            throw MappingError(.spec, "expected a key path string, a list of them, null or an object, found \(value.kindName)", path: path)
        }
    }
}
