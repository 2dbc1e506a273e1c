/// Loads the `entities` section into a `Model`: attribute types and defaults, inheritance through
/// `parent`, relationships with their inverses checked both ways, and identification (explicit,
/// inherited or inferred by RestKit's rules).
enum EntityLoader {
    /// An entity's own declarations, before inheritance and inverses are resolved.
    private struct Draft {
        let name: String
        let object: SpecObject
        var parent: Int?
        var attributes: [Attribute] = []
        var relationships: [RelationshipDraft] = []
        var identification: [String]?
        var renamedFrom: String?
    }

    private struct RelationshipDraft {
        let name: String
        let path: String
        let destination: Int
        let toMany: Bool
        let ordered: Bool
        var inverseName: String?
        let deleteRule: DeleteRule
        let minCount: Int?
        let maxCount: Int?
        let renamedFrom: String?
    }

    static func load(_ value: JSONValue) throws(MappingError) -> Model {
        let section = try SpecObject(value, path: "$.entities")
        guard !section.members.isEmpty else {
            throw MappingError(.spec, "the spec declares no entities", path: section.path)
        }
        var indexByName: [String: Int] = [:]
        var drafts: [Draft] = []
        for (offset, member) in section.members.enumerated() {
            indexByName[member.key] = offset
            drafts.append(Draft(name: member.key, object: try SpecObject(member.value, path: section.path(member.key))))
        }
        for index in drafts.indices {
            try readOwnDeclarations(&drafts[index], entityIndex: indexByName)
        }
        let order = try parentsFirst(drafts)
        let names = inheritedNames(drafts, order: order)
        try resolveInverses(&drafts, names: names)
        return try assemble(drafts, order: order, names: names)
    }

    private static func readOwnDeclarations(_ draft: inout Draft, entityIndex: [String: Int]) throws(MappingError) {
        let object = draft.object
        try object.allowKeys(["parent", "attributes", "relationships", "identification", "renamedFrom"])
        draft.renamedFrom = try object.string("renamedFrom")
        if let parentName = try object.string("parent") {
            guard let parent = entityIndex[parentName] else {
                throw MappingError(.spec, "unknown parent entity \"\(parentName)\""
                                   + NameHint.hint(for: parentName, among: Array(entityIndex.keys), kind: "entities"), path: object.path("parent"))
            }
            draft.parent = parent
        }
        // `"identification": null` turns inference off: the entity has no identification (E10).
        if case .null? = object["identification"] {
            draft.identification = []
        } else {
            draft.identification = try object.names("identification")
        }
        if let attributes = object["attributes"] {
            let section = try SpecObject(attributes, path: object.path("attributes"))
            for member in section.members {
                draft.attributes.append(try attribute(member, path: section.path(member.key)))
            }
        }
        if let relationships = object["relationships"] {
            let section = try SpecObject(relationships, path: object.path("relationships"))
            for member in section.members {
                draft.relationships.append(try relationship(member, path: section.path(member.key),
                                                            entityIndex: entityIndex))
            }
        }
    }

    private static func attribute(_ member: JSONMember, path: String) throws(MappingError) -> Attribute {
        let typeName: String
        var defaultValue: AttributeValue?
        var indexed = false
        var renamedFrom: String?
        switch member.value {
        case .string(let name):
            typeName = name
        case .object:
            let object = try SpecObject(member.value, path: path)
            try object.allowKeys(["type", "default", "indexed", "renamedFrom"])
            renamedFrom = try object.string("renamedFrom")
            guard let name = try object.string("type") else {
                throw MappingError(.spec, "missing required key \"type\"", path: path)
            }
            typeName = name
            indexed = try object.bool("indexed") ?? false
            if let value = object["default"], let type = AttributeType(rawValue: typeName) {
                do {
                    if case .value(let coerced) = try Coercion.coerce(value, reader: JSONValueReader(), to: type,
                                                                      depthLimit: 64) {
                        defaultValue = coerced
                    }
                } catch {
                    throw MappingError(.spec, "default value: \(error.message)", path: object.path("default"))
                }
            }
        default:
            throw MappingError(.spec, "expected a type name or an object, found \(member.value.kindName)", path: path)
        }
        guard let type = AttributeType(rawValue: typeName) else {
            throw MappingError(.spec, "unknown attribute type \"\(typeName)\""
                               + NameHint.hint(for: typeName, among: AttributeType.allCases.map(\.rawValue), kind: "types"), path: path)
        }
        return Attribute(name: member.key, type: type, defaultValue: defaultValue, indexed: indexed, renamedFrom: renamedFrom)
    }

    private static func relationship(_ member: JSONMember, path: String,
                                     entityIndex: [String: Int]) throws(MappingError) -> RelationshipDraft {
        let object = try SpecObject(member.value, path: path)
        try object.allowKeys(["entity", "toMany", "ordered", "inverse", "deleteRule", "minCount", "maxCount", "renamedFrom"])
        guard let destinationName = try object.string("entity") else {
            throw MappingError(.spec, "missing required key \"entity\"", path: path)
        }
        guard let destination = entityIndex[destinationName] else {
            throw MappingError(.spec, "unknown entity \"\(destinationName)\""
                               + NameHint.hint(for: destinationName, among: Array(entityIndex.keys), kind: "entities"), path: object.path("entity"))
        }
        let toMany = try object.bool("toMany") ?? false
        let ordered = try object.bool("ordered") ?? false
        if ordered && !toMany {
            throw MappingError(.spec, "only a to-many relationship can be ordered", path: object.path("ordered"))
        }
        var deleteRule = DeleteRule.nullify
        if let ruleName = try object.string("deleteRule") {
            guard let rule = DeleteRule(rawValue: ruleName) else {
                throw MappingError(.spec, "unknown delete rule \"\(ruleName)\" (expected nullify, cascade, deny or noAction)",
                                   path: object.path("deleteRule"))
            }
            deleteRule = rule
        }
        let minCount = try object.count("minCount")
        let maxCount = try object.count("maxCount")
        if let low = minCount, let high = maxCount, low > high {
            throw MappingError(.spec, "minCount is greater than maxCount", path: object.path("minCount"))
        }
        if !toMany, let high = maxCount, high > 1 {
            throw MappingError(.spec, "a to-one relationship holds at most one object", path: object.path("maxCount"))
        }
        return RelationshipDraft(name: member.key, path: path, destination: destination, toMany: toMany,
                                 ordered: ordered, inverseName: try object.string("inverse"), deleteRule: deleteRule,
                                 minCount: minCount, maxCount: maxCount, renamedFrom: try object.string("renamedFrom"))
    }

    /// Entity indexes ordered so that every parent comes before its children; rejects cycles.
    private static func parentsFirst(_ drafts: [Draft]) throws(MappingError) -> [Int] {
        var order: [Int] = []
        var placed = Array(repeating: false, count: drafts.count)
        for start in drafts.indices where !placed[start] {
            var chain: [Int] = []
            var current: Int? = start
            while let index = current, !placed[index] {
                if chain.contains(index) {
                    throw MappingError(.spec, "entity \"\(drafts[start].name)\" is its own ancestor",
                                       path: drafts[start].object.path("parent"))
                }
                chain.append(index)
                current = drafts[index].parent
            }
            for index in chain.reversed() {
                placed[index] = true
                order.append(index)
            }
        }
        return order
    }

    /// For each entity, the names of all its attributes and relationships, inherited ones first.
    private struct Names {
        var attributes: [String] = []
        var relationships: [String] = []
        /// For each relationship name, the entity that declares it.
        var declaringEntity: [String: Int] = [:]
    }

    private static func inheritedNames(_ drafts: [Draft], order: [Int]) -> [Names] {
        var names = Array(repeating: Names(), count: drafts.count)
        for index in order {
            var entry = drafts[index].parent.map { names[$0] } ?? Names()
            entry.attributes += drafts[index].attributes.map(\.name)
            for relationship in drafts[index].relationships {
                entry.relationships.append(relationship.name)
                entry.declaringEntity[relationship.name] = index
            }
            names[index] = entry
        }
        return names
    }

    /// Checks that every declared inverse points back, and completes the side that names none.
    private static func resolveInverses(_ drafts: inout [Draft], names: [Names]) throws(MappingError) {
        for entity in drafts.indices {
            for position in drafts[entity].relationships.indices {
                let relationship = drafts[entity].relationships[position]
                guard let inverseName = relationship.inverseName else { continue }
                let destination = relationship.destination
                let inversePath = JSONPathText.appending(relationship.path, key: "inverse")
                guard let owner = names[destination].declaringEntity[inverseName],
                      let inversePosition = drafts[owner].relationships.firstIndex(where: { $0.name == inverseName })
                else {
                    throw MappingError(.spec, "entity \"\(drafts[destination].name)\" has no relationship \"\(inverseName)\""
                                       + NameHint.hint(for: inverseName, among: names[destination].relationships, kind: "relationships"),
                                       path: inversePath)
                }
                let inverse = drafts[owner].relationships[inversePosition]
                guard isKind(entity, of: inverse.destination, drafts) else {
                    throw MappingError(.spec, "inverse \"\(drafts[owner].name).\(inverseName)\" leads to \"\(drafts[inverse.destination].name)\", not back to \"\(drafts[entity].name)\"",
                                       path: inversePath)
                }
                if let back = inverse.inverseName, back != relationship.name {
                    throw MappingError(.spec, "inverse \"\(drafts[owner].name).\(inverseName)\" names \"\(back)\" as its inverse, not \"\(relationship.name)\"",
                                       path: inversePath)
                }
                drafts[owner].relationships[inversePosition].inverseName = relationship.name
            }
        }
    }

    private static func isKind(_ entity: Int, of ancestor: Int, _ drafts: [Draft]) -> Bool {
        var current: Int? = entity
        var steps = 0
        while let index = current, steps <= drafts.count {
            if index == ancestor { return true }
            current = drafts.indices.contains(index) ? drafts[index].parent : nil
            steps += 1
        }
        return false
    }

    private static func assemble(_ drafts: [Draft], order: [Int], names: [Names]) throws(MappingError) -> Model {
        var attributes = Array(repeating: [Attribute](), count: drafts.count)
        var relationships = Array(repeating: [Relationship](), count: drafts.count)
        var identification = Array(repeating: [Int](), count: drafts.count)
        var explicitIdentification = Array(repeating: [String]?.none, count: drafts.count)
        var identityMaps: [IdentityMapKey: Int] = [:]
        var identityMap = Array(repeating: Int?.none, count: drafts.count)
        for index in order {
            let draft = drafts[index]
            let inherited = draft.parent.map { attributes[$0] } ?? []
            var own = inherited
            for attribute in draft.attributes {
                if own.contains(where: { $0.name == attribute.name }) {
                    throw MappingError(.spec, "attribute \"\(attribute.name)\" is already declared by a parent entity",
                                       path: JSONPathText.appending(draft.object.path("attributes"), key: attribute.name))
                }
                own.append(attribute)
            }
            attributes[index] = own
            var links = draft.parent.map { relationships[$0] } ?? []
            for relationship in draft.relationships {
                if links.contains(where: { $0.name == relationship.name }) || own.contains(where: { $0.name == relationship.name }) {
                    throw MappingError(.spec, "\"\(relationship.name)\" is already declared in entity \"\(draft.name)\" or a parent",
                                       path: relationship.path)
                }
                let inverse = relationship.inverseName.flatMap { names[relationship.destination].relationships.firstIndex(of: $0) }
                links.append(Relationship(name: relationship.name, destination: relationship.destination,
                                          toMany: relationship.toMany, ordered: relationship.ordered, inverse: inverse,
                                          deleteRule: relationship.deleteRule, minCount: relationship.minCount,
                                          maxCount: relationship.maxCount, renamedFrom: relationship.renamedFrom))
            }
            relationships[index] = links

            explicitIdentification[index] = draft.identification ?? draft.parent.flatMap { explicitIdentification[$0] }
            let attributeNames = own.map(\.name)
            var chosen: [String] = []
            if let explicit = explicitIdentification[index] {
                chosen = explicit
            } else if let inferred = IdentificationInference.infer(entityName: draft.name,
                                                                   attributeNames: Set(attributeNames)) {
                chosen = [inferred]
            }
            var indexes: [Int] = []
            for name in chosen {
                guard let position = attributeNames.firstIndex(of: name) else {
                    throw MappingError(.spec, "identification names \"\(name)\", which is not an attribute of \"\(draft.name)\""
                                       + NameHint.hint(for: name, among: attributeNames, kind: "attributes"),
                                       path: draft.object.path("identification"))
                }
                if own[position].type == .json {
                    throw MappingError(.spec, "a json attribute cannot identify an object",
                                       path: draft.object.path("identification"))
                }
                indexes.append(position)
            }
            identification[index] = indexes
            if !indexes.isEmpty {
                let key = IdentityMapKey(root: rootOf(index, drafts), attributes: indexes)
                identityMap[index] = identityMaps[key] ?? identityMaps.count
                identityMaps[key] = identityMap[index]
            }
        }
        let entities = drafts.indices.map { index in
            Entity(name: drafts[index].name, index: index, parent: drafts[index].parent,
                   attributes: attributes[index], relationships: relationships[index],
                   identification: identification[index], identityMap: identityMap[index],
                   renamedFrom: drafts[index].renamedFrom)
        }
        return Model(entities: entities, identityMapCount: identityMaps.count)
    }

    private struct IdentityMapKey: Hashable {
        let root: Int
        let attributes: [Int]
    }

    private static func rootOf(_ entity: Int, _ drafts: [Draft]) -> Int {
        var current = entity
        var steps = 0
        while let parent = drafts[current].parent, steps <= drafts.count {
            current = parent
            steps += 1
        }
        return current
    }
}
