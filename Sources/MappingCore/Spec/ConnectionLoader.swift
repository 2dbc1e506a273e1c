/// Reads a mapping's `"connections"`: `{"relationship": {"attributes": "favoriteCatID" | [..] | {src: dst},
/// "keyPath": "residence.owner", "includesSubentities": true, "nullifyWhenSourceNil": false,
/// "createMissing": false}}`.
enum ConnectionLoader {
    static func load(_ mapping: SpecObject, entity: Entity, model: Model,
                     mapped: Set<Int>) throws(MappingError) -> [ConnectionPlan] {
        guard let value = mapping["connections"] else { return [] }
        let section = try SpecObject(value, path: mapping.path("connections"))
        var plans: [ConnectionPlan] = []
        for member in section.members {
            let object = try SpecObject(member.value, path: section.path(member.key))
            try object.allowKeys(["attributes", "keyPath", "includesSubentities", "nullifyWhenSourceNil", "createMissing",
                                  "sourcePredicate", "destinationPredicate"])
            guard let index = entity.relationshipIndex(named: member.key) else {
                throw entity.unknownRelationship(member.key, code: .spec, path: object.path)
            }
            guard !mapped.contains(index) else {
                throw MappingError(.spec, "\"\(member.key)\" is both mapped from the payload and connected; choose one",
                                   path: object.path)
            }
            let relationship = entity.relationships[index]
            let source: ConnectionPlan.Source
            switch (object["attributes"], try object.string("keyPath")) {
            case (let attributes?, nil):
                source = .attributes(try pairs(attributes, path: object.path("attributes"), entity: entity,
                                               destination: model.entities[relationship.destination]))
            case (nil, let keyPath?):
                source = .keyPath(try steps(keyPath, path: object.path("keyPath"), entity: entity, model: model,
                                            destination: relationship.destination))
            default:
                throw MappingError(.spec, "a connection needs exactly one of \"attributes\" and \"keyPath\"", path: object.path)
            }
            let createMissing = try object.bool("createMissing") ?? false
            if createMissing {
                guard case .attributes(let pairs) = source, pairs.count == 1,
                      model.entities[relationship.destination].identification == [pairs[0].destination] else {
                    throw MappingError(.spec, "createMissing needs one attribute pair whose destination is the destination entity's identification",
                                       path: object.path("createMissing"))
                }
            }
            plans.append(ConnectionPlan(relationship: index, source: source,
                                        includesSubentities: try object.bool("includesSubentities") ?? true,
                                        nullifyWhenSourceNil: try object.bool("nullifyWhenSourceNil") ?? false,
                                        createMissing: createMissing,
                                        sourcePredicate: try MappingLoader.predicate(object, "sourcePredicate", entity: entity, model: model),
                                        destinationPredicate: try MappingLoader.predicate(object, "destinationPredicate",
                                                                                          entity: model.entities[relationship.destination],
                                                                                          model: model)))
        }
        return plans
    }

    /// `"favoriteCatID"` ⇒ {favoriteCatID: favoriteCatID}; `["a", "b"]` ⇒ {a: a, b: b}; `{"a": "x"}` as is.
    private static func pairs(_ value: JSONValue, path: String, entity: Entity,
                              destination: Entity) throws(MappingError) -> [(source: Int, destination: Int)] {
        var names: [(String, String)] = []
        switch value {
        case .string(let name): names = [(name, name)]
        case .array(let elements):
            for element in elements {
                guard case .string(let name) = element else { throw MappingError(.spec, "expected attribute names", path: path) }
                names.append((name, name))
            }
        case .object(let members):
            for member in members {
                guard case .string(let name) = member.value else {
                    throw MappingError(.spec, "expected a destination attribute name", path: JSONPathText.appending(path, key: member.key))
                }
                names.append((member.key, name))
            }
        default:
            throw MappingError(.spec, "expected an attribute name, a list of them, or an object of source: destination names", path: path)
        }
        guard !names.isEmpty else { throw MappingError(.spec, "at least one attribute must be named", path: path) }
        var result: [(source: Int, destination: Int)] = []
        for (sourceName, destinationName) in names {
            guard let source = entity.attributeIndex(named: sourceName) else {
                throw entity.unknownAttribute(sourceName, code: .spec, path: path)
            }
            guard let target = destination.attributeIndex(named: destinationName) else {
                throw destination.unknownAttribute(destinationName, code: .spec, path: path)
            }
            result.append((source, target))
        }
        return result
    }

    /// `residence.owner` ⇒ the relationship indexes it follows, checked to end at the destination.
    private static func steps(_ keyPath: String, path: String, entity: Entity, model: Model,
                              destination: Int) throws(MappingError) -> [(entity: Int, relationship: Int)] {
        var current = entity
        var result: [(entity: Int, relationship: Int)] = []
        for name in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            guard let index = current.relationshipIndex(named: name) else {
                throw current.unknownRelationship(name, code: .spec, path: path)
            }
            result.append((current.index, index))
            current = model.entities[current.relationships[index].destination]
        }
        guard model.isKind(current.index, of: destination) else {
            throw MappingError(.spec, "\"\(keyPath)\" leads to \"\(current.name)\", not to \"\(model.entities[destination].name)\"", path: path)
        }
        return result
    }
}
