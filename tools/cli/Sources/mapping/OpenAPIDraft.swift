import MappingCore

/// A draft spec from an OpenAPI document: an entity per resource (the schemas `OpenAPIMerge` joins),
/// a mapping per schema, relationships with the inverses the document implies, a named route per
/// operation and an entity route where the path's parameters are the entity's attributes, and a
/// response descriptor per operation that returns an entity. What it leaves out or keeps as `json`
/// goes in `report`.
struct OpenAPIDraft {
    typealias Node = OpenAPIDocument.Node
    typealias Kind = OpenAPISchemas.Kind

    struct Options {
        var automaticMerges = true
        var merges: [[String]] = []
        var schemas: Set<String>?
        var paths: [String]?
    }

    /// What the draft is made of, for the summary.
    struct Counts {
        var schemas = 0, entities = 0, identified = 0, mergedSchemas = 0, merges = 0
        var relationships = 0, withInverse = 0, operations = 0, routed = 0, entityRoutes = 0, descriptors = 0, skippedPaths = 0
    }

    let document: OpenAPIDocument
    let schemas: OpenAPISchemas
    let merge: OpenAPIMerge
    private let operations: [(path: String, method: String, operation: Node)]
    private(set) var report: [String] = []
    private(set) var counts = Counts()
    /// Entity name per group root; mapping name per schema.
    private var entityNames: [Int: String] = [:]
    private var mappingNames: [String] = []
    /// The entity each GET path returns one of, and the entity each lists.
    private var singles: [String: String] = [:]
    private var lists: [String: String] = [:]

    init(_ document: OpenAPIDocument, options: Options) {
        self.document = document
        operations = document.operations.filter { operation in
            options.paths.map { globs in globs.contains { Self.glob($0, matches: operation.path) } } ?? true
        }
        var selected = options.schemas
        if selected == nil, options.paths != nil {
            selected = Self.referencedSchemas(operations.map { $0.operation as Any }, document)
        }
        schemas = OpenAPISchemas(document, only: selected)
        merge = OpenAPIMerge(schemas, automatic: options.automaticMerges, byHand: options.merges)
        report += schemas.notes + merge.refusals
        nameEverything()
    }

    /// `*` matches any text.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return pattern == text }
        guard text.hasPrefix(parts[0]) else { return false }
        var rest = Substring(text.dropFirst(parts[0].count))
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = rest.range(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(parts[parts.count - 1])
    }

    /// Every component schema `nodes` refer to, directly or through other components.
    static func referencedSchemas(_ nodes: [Any], _ document: OpenAPIDocument) -> Set<String> {
        var found: Set<String> = []
        var pending = nodes
        var visitedResponses: Set<String> = []
        while let node = pending.popLast() {
            if let dictionary = node as? Node {
                if let reference = dictionary["$ref"] as? String {
                    if let name = OpenAPIDocument.schemaName(dictionary) {
                        if found.insert(name).inserted, let target = document.componentSchemas[name] { pending.append(target) }
                    } else if visitedResponses.insert(reference).inserted {
                        pending.append(document.resolved(dictionary))
                    }
                }
                pending += Array(dictionary.values)
            } else if let array = node as? [Any] {
                pending += array
            }
        }
        return found
    }

    // MARK: Names

    private mutating func nameEverything() {
        let all = schemas.schemas
        var members: [Int: [Int]] = [:]
        for index in all.indices { members[merge.root(index), default: []].append(index) }
        var taken: Set<String> = []
        // Groups with the most schemas choose first, so `User` goes to the users.
        for (root, group) in members.sorted(by: { ($0.value.count, -$0.key) > ($1.value.count, -$1.key) }) {
            var stems: [String: Int] = [:]
            for index in group where !all[index].isInline { stems[all[index].stem, default: 0] += 1 }
            let largest = group.max { all[$0].properties.count < all[$1].properties.count } ?? root
            let stem = stems.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? all[largest].stem
            var candidates = [OpenAPINames.upperCamel(stem)]
            if all[largest].isInline {
                candidates = [OpenAPINames.upperCamel(all[largest].name)]
            }
            candidates.append(OpenAPINames.upperCamel(all[largest].name))
            var name = candidates.first { !taken.contains($0) } ?? candidates[0]
            var suffix = 2
            while taken.contains(name) { name = candidates[0] + String(suffix); suffix += 1 }
            taken.insert(name)
            entityNames[root] = name
            if group.count > 1 {
                counts.merges += 1
                counts.mergedSchemas += group.count
                let names = group.map { all[$0].name }
                let why = group.compactMap { index -> String? in
                    merge.reasons[all[index].name].map { "\(all[index].name): \($0)" }
                }
                report.append("merged into \(name): \(names.joined(separator: ", ")) (\(why.joined(separator: "; ")))")
            }
        }
        var mappings: Set<String> = []
        for schema in all {
            var name = OpenAPINames.lowerCamel(schema.name)
            var suffix = 2
            while mappings.contains(name) { name = OpenAPINames.lowerCamel(schema.name) + String(suffix); suffix += 1 }
            mappings.insert(name)
            mappingNames.append(name)
        }
    }

    func entity(ofSchema name: String) -> String? {
        schemas.index[name].flatMap { entityNames[merge.root($0)] }
    }

    /// The entity of a schema, then those of the schemas its `allOf` builds on, nearest first.
    func lineage(ofSchema name: String) -> [String] {
        var found: [String] = []
        var visited: Set<String> = []
        var current: String? = name
        while let schema = current, visited.insert(schema).inserted, let entity = entity(ofSchema: schema) {
            if !found.contains(entity) { found.append(entity) }
            current = schemas[name: schema]?.base
        }
        return found
    }

    func mapping(ofSchema name: String) -> String? {
        schemas.index[name].map { mappingNames[$0] }
    }

    // MARK: The spec

    mutating func spec() -> JSONValue {
        var (entities, mappings) = entitiesAndMappings()
        let (routes, descriptors) = endpoints(entities)
        linkInverses(&entities)
        addCollections(&entities)
        var members = [JSONMember("entities", .object(entities.map { JSONMember($0.name, $0.json) })),
                       JSONMember("mappings", .object(mappings))]
        if !routes.isEmpty { members.append(JSONMember("routes", .array(routes))) }
        if !descriptors.isEmpty { members.append(JSONMember("responseDescriptors", .array(descriptors))) }
        counts.schemas = schemas.schemas.count
        counts.entities = entities.count
        counts.identified = entities.filter { $0.identification != nil || $0.parent != nil }.count
        counts.relationships = entities.reduce(0) { $0 + $1.relationships.count }
        counts.withInverse = entities.reduce(0) { $0 + $1.relationships.filter { $0.inverse != nil }.count }
        mappings.removeAll()
        return .object(members)
    }

    /// An entity as the draft declares it.
    struct Entity {
        let name: String
        var attributes: [(String, String)] = []
        var relationships: [Relationship] = []
        var identification: String?
        var parent: String?

        struct Relationship {
            let name: String
            let entity: String
            let toMany: Bool
            var inverse: String?
        }

        var json: JSONValue {
            var members = [JSONMember("attributes", .object(attributes.map { JSONMember($0.0, .string($0.1)) }))]
            if !relationships.isEmpty {
                members.append(JSONMember("relationships", .object(relationships.map { relationship in
                    var declaration = [JSONMember("entity", .string(relationship.entity))]
                    if relationship.toMany { declaration += [JSONMember("toMany", .bool(true)), JSONMember("ordered", .bool(true))] }
                    if let inverse = relationship.inverse { declaration.append(JSONMember("inverse", .string(inverse))) }
                    return JSONMember(relationship.name, .object(declaration))
                })))
            }
            if let identification, parent == nil { members.append(JSONMember("identification", .array([.string(identification)]))) }
            if let parent { members.append(JSONMember("parent", .string(parent))) }
            return .object(members)
        }
    }

    /// What one property of one schema becomes once the schemas are entities: an attribute of a
    /// type, a relationship to an entity (through a mapping), or nothing.
    private enum Element: Equatable {
        case attribute(String)
        case relationship(entity: String, toMany: Bool)
    }

    /// The element a property of `schema` would be on its own, with the reason when it is json or
    /// left out.
    private func element(_ schema: OpenAPISchemas.Schema, _ key: String, _ property: Node) -> (Element?, Kind) {
        let kind = schemas.kind(property, owner: schema.name, key: key)
        switch kind {
        case .attribute(let type): return (.attribute(type), kind)
        case .json: return (.attribute("json"), kind)
        case .leftOut: return (nil, kind)
        case .relationship(let targets, let toMany, _):
            // The entity every target is (a sub-entity of): `oneOf` Dog and Cat, both `allOf` Animal, is Animal.
            let lineages = targets.map { lineage(ofSchema: $0) }
            guard let target = lineages.first?.first(where: { name in lineages.allSatisfy { $0.contains(name) } }) else {
                return (.attribute("json"), .json("a choice of \(targets.joined(separator: ", ")), which are not one entity"))
            }
            return (.relationship(entity: target, toMany: toMany), kind)
        }
    }

    /// The entities (one per group) and the mappings (one per schema, plus a dynamic mapping per
    /// discriminated choice). First each entity's elements — where its schemas disagree, a typed
    /// attribute or a relationship wins over json, and the fullest schema over the others — then
    /// each schema's mapping of the elements its properties agree with.
    private mutating func entitiesAndMappings() -> ([Entity], [JSONMember]) {
        let all = schemas.schemas
        let fullestFirst = all.indices.sorted { (all[$0].properties.count, -$0) > (all[$1].properties.count, -$1) }
        var entities: [String: Entity] = [:]
        var elements: [String: [String: Element]] = [:]
        var order: [String] = []
        for index in fullestFirst {
            let schema = all[index]
            guard let entityName = entity(ofSchema: schema.name) else { continue }
            if entities[entityName] == nil {
                order.append(entityName)
                entities[entityName] = Entity(name: entityName, identification: schema.identification)
            }
            for (key, property) in schema.properties {
                guard let found = element(schema, key, property).0 else { continue }
                if let existing = elements[entityName]?[key], existing != .attribute("json") { continue }
                elements[entityName, default: [:]][key] = found
            }
        }
        for name in order {
            for (key, element) in (elements[name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                switch element {
                case .attribute(let type): entities[name]?.attributes.append((key, type))
                case .relationship(let target, let toMany): entities[name]?.relationships.append(.init(name: key, entity: target, toMany: toMany))
                }
            }
        }
        var mappings: [JSONMember] = []
        var jsonNotes: [String: [String]] = [:]
        for index in all.indices {
            let schema = all[index]
            guard let entityName = entity(ofSchema: schema.name) else { continue }
            var attributeKeys: [JSONMember] = []
            var relationshipKeys: [JSONMember] = []
            var optional: [JSONValue] = []
            for (key, property) in schema.properties {
                let (found, kind) = element(schema, key, property)
                guard let found else {
                    if case .leftOut(let reason) = kind { report.append("left out \(schema.name).\(key): \(reason)") }
                    continue
                }
                let chosen = elements[entityName]?[key]
                guard chosen == found else {
                    let what: String
                    switch chosen {
                    case .attribute(let type)?: what = "\(type) attribute"
                    case .relationship(let target, _)?: what = "relationship to \(target)"
                    case nil: what = "nothing"
                    }
                    report.append("left out \(schema.name).\(key): here \(Self.describe(found)), but \(entityName).\(key) is a \(what)")
                    continue
                }
                switch (found, kind) {
                case (.relationship(let target, _), .relationship(let targets, _, let discriminator)):
                    let mappingName = choiceMapping(targets, discriminator, owner: schema, key: key, entity: target, into: &mappings) ?? ""
                    relationshipKeys.append(JSONMember(key, .object([JSONMember("keyPath", .string(key)),
                                                                     JSONMember("mapping", .string(mappingName))])))
                default:
                    if case .json(let reason) = kind { jsonNotes[schema.name, default: []].append("\(key) (\(reason))") }
                    attributeKeys.append(JSONMember(key, .string(key)))
                }
                if !schema.required.contains(key) { optional.append(.string(key)) }
            }
            var mapping = [JSONMember("entity", .string(entityName)), JSONMember("attributes", .object(attributeKeys))]
            if !relationshipKeys.isEmpty { mapping.append(JSONMember("relationships", .object(relationshipKeys))) }
            if !optional.isEmpty { mapping.append(JSONMember("optional", .array(optional))) }
            mappings.append(JSONMember(mappingNames[index], .object(mapping)))
        }
        for (schema, keys) in jsonNotes.sorted(by: { $0.key < $1.key }) {
            report.append("json in \(schema): \(keys.joined(separator: ", "))")
        }
        setParents(&entities, order)
        for name in order.sorted() where entities[name]?.identification == nil && entities[name]?.parent == nil {
            report.append("no identification for \(name): none of id, uuid, <name>_id, sha, node_id, key, slug, url "
                          + "(each import makes new objects; add one to the entity)")
        }
        mappings.sort { $0.key < $1.key }
        return (order.sorted().compactMap { entities[$0] }, mappings)
    }

    private static func describe(_ element: Element) -> String {
        switch element {
        case .attribute(let type): return "a \(type) attribute"
        case .relationship(let target, _): return "a relationship to \(target)"
        }
    }

    /// The mapping a relationship maps its targets with: the target schema's, or for a choice, a
    /// dynamic mapping by the discriminator (or, without one, the fullest target's mapping).
    private mutating func choiceMapping(_ targets: [String], _ discriminator: OpenAPISchemas.Discriminator?,
                                        owner: OpenAPISchemas.Schema, key: String, entity: String,
                                        into mappings: inout [JSONMember]) -> String? {
        if targets.count == 1 { return mapping(ofSchema: targets[0]) }
        guard let discriminator else {
            // Without a discriminator nothing tells the variants apart: every element is mapped
            // onto the entity they all are, with the fullest mapping of that entity itself (for
            // Dog and Cat both Animals, Animal's; for schemas merged into one entity, the fullest).
            let candidates = schemas.schemas.filter { self.entity(ofSchema: $0.name) == entity }
            let chosen = candidates.max { $0.properties.count < $1.properties.count }
            report.append("\(owner.name).\(key): a choice of \(targets.joined(separator: ", ")) without a discriminator, "
                          + "mapped as \(entity) by \(chosen.flatMap { mapping(ofSchema: $0.name) } ?? "nothing")")
            return chosen.flatMap { mapping(ofSchema: $0.name) }
        }
        let name = OpenAPINames.lowerCamel(owner.name + "-" + key + "-choice")
        let cases = discriminator.cases.compactMap { value, schema in mapping(ofSchema: schema).map { JSONMember(value, .string($0)) } }
        mappings.append(JSONMember(name, .object([JSONMember("dynamic", .object([JSONMember("keyPath", .string(discriminator.property)),
                                                                                 JSONMember("cases", .object(cases))]))])))
        return name
    }

    /// `allOf` of a base schema that is another entity makes that entity the parent: the
    /// sub-entity keeps what the parent lacks and shares its identification.
    private mutating func setParents(_ entities: inout [String: Entity], _ order: [String]) {
        for schema in schemas.schemas {
            guard let base = schema.base, let child = entity(ofSchema: schema.name), let parent = entity(ofSchema: base),
                  child != parent, entities[child]?.parent == nil else { continue }
            // No cycles: the parent must not descend from the child.
            var ancestor: String? = parent
            var steps = 0
            while let current = ancestor, current != child, steps < 64 { ancestor = entities[current]?.parent; steps += 1 }
            guard ancestor == nil else { continue }
            entities[child]?.parent = parent
        }
        // A sub-entity may not declare again what an ancestor declares.
        for name in order {
            var inherited: Set<String> = []
            var ancestor = entities[name]?.parent
            var steps = 0
            while let current = ancestor, steps < 64 {
                inherited.formUnion(entities[current]?.attributes.map(\.0) ?? [])
                inherited.formUnion(entities[current]?.relationships.map(\.name) ?? [])
                ancestor = entities[current]?.parent
                steps += 1
            }
            entities[name]?.attributes.removeAll { inherited.contains($0.0) }
            entities[name]?.relationships.removeAll { inherited.contains($0.name) }
        }
    }

    /// A to-one from A to B and a to-many from B to A, each the only relationship between the two,
    /// are one relationship seen from both ends.
    private func linkInverses(_ entities: inout [Entity]) {
        let position = Dictionary(entities.indices.map { (entities[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
        for a in entities.indices {
            for r in entities[a].relationships.indices where !entities[a].relationships[r].toMany {
                let relationship = entities[a].relationships[r]
                guard relationship.inverse == nil, relationship.entity != entities[a].name, let b = position[relationship.entity],
                      entities[a].relationships.filter({ $0.entity == relationship.entity }).count == 1 else { continue }
                let back = entities[b].relationships.indices.filter { entities[b].relationships[$0].entity == entities[a].name }
                guard back.count == 1, let s = back.first, entities[b].relationships[s].toMany, entities[b].relationships[s].inverse == nil else { continue }
                entities[a].relationships[r].inverse = entities[b].relationships[s].name
                entities[b].relationships[s].inverse = relationship.name
            }
        }
    }

    /// A GET of `…/parent/{id}/issues` listing issues, where `…/parent/{id}` is a repository and an
    /// issue has one to-one to repositories, says that a repository has issues: the repository gets
    /// a to-many `issues`, inverse of that to-one.
    private mutating func addCollections(_ entities: inout [Entity]) {
        let position = Dictionary(entities.indices.map { (entities[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
        for (path, listed) in lists.sorted(by: { $0.key < $1.key }) {
            guard let cut = path.lastIndex(of: "/") else { continue }
            let collection = String(path[path.index(after: cut)...])
            guard let owner = singles[String(path[..<cut])], owner != listed, !collection.contains("{"),
                  collection.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
                  let a = position[owner], let b = position[listed] else { continue }
            let back = entities[b].relationships.indices.filter { entities[b].relationships[$0].entity == owner }
            guard back.count == 1, let r = back.first, !entities[b].relationships[r].toMany, entities[b].relationships[r].inverse == nil,
                  !entities[a].relationships.contains(where: { $0.name == collection }),
                  !entities[a].attributes.contains(where: { $0.0 == collection }) else { continue }
            entities[a].relationships.append(.init(name: collection, entity: listed, toMany: true, inverse: entities[b].relationships[r].name))
            entities[b].relationships[r].inverse = collection
            report.append("\(owner).\(collection): a to-many, inverse of \(listed).\(entities[b].relationships[r].name) (GET \(path) lists them)")
        }
    }

    // MARK: Routes and response descriptors

    private mutating func endpoints(_ entities: [Entity]) -> (routes: [JSONValue], descriptors: [JSONValue]) {
        var routes: [JSONValue] = []
        var descriptors: [JSONValue] = []
        var routedEntities: Set<String> = []
        var names: Set<String> = []
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (path, method, operation) in operations {
            counts.operations += 1
            let converted: (pattern: String, parameters: [String])
            do {
                converted = try OpenAPIPaths.pattern(path)
            } catch {
                counts.skippedPaths += 1
                report.append("skipped \(method.uppercased()) \(path): \(error.reason)")
                continue
            }
            var name = (operation["operationId"] as? String) ?? "\(method.uppercased()) \(path)"
            if names.contains(name) { name = "\(method.uppercased()) \(path)" }
            if names.insert(name).inserted {
                routes.append(.object([JSONMember("name", .string(name)), JSONMember("method", .string(method.uppercased())),
                                       JSONMember("path", .string(converted.pattern))]))
                counts.routed += 1
            }
            guard let (schema, keyPath, isList) = responseSchema(operation), let mapping = mapping(ofSchema: schema),
                  let entity = entity(ofSchema: schema) else { continue }
            var descriptor = [JSONMember("mapping", .string(mapping)), JSONMember("method", .string(method.uppercased())),
                              JSONMember("pathPattern", .string(converted.pattern))]
            if let keyPath { descriptor.append(JSONMember("keyPath", .string(keyPath))) }
            descriptors.append(.object(descriptor))
            counts.descriptors += 1
            if method == "get", keyPath == nil {
                if isList { lists[path] = entity } else { singles[path] = entity }
            }
            let key = entity + " " + method
            // An entity's route is the path of the object itself: it ends with a parameter
            // (`/issues/{issue_number}`, not `/issues/{issue_number}/assignees`).
            guard !isList, method != "post", !converted.parameters.isEmpty, !routedEntities.contains(key),
                  path.split(separator: "/").last?.hasPrefix("{") == true,
                  let renames = Self.parameterKeyPaths(converted.parameters, stem: schemas[name: schema]?.stem ?? "",
                                                       entity: entity, entities: byName) else { continue }
            guard let routePath = try? OpenAPIPaths.pattern(path, naming: renames).pattern else { continue }
            routedEntities.insert(key)
            routes.append(.object([JSONMember("entity", .string(entity)), JSONMember("method", .string(method.uppercased())),
                                   JSONMember("path", .string(routePath))]))
            counts.entityRoutes += 1
        }
        return (routes, descriptors)
    }

    /// The key path each path parameter names on `entity`: an attribute (`id`), one without the
    /// resource's name (`issue_number` → `number`, `gist_id` → `id`), or a to-one relationship's
    /// label, one or two hops away, the hop named like the parameter (`{repo}` → `repository.name`,
    /// `{owner}` → `repository.owner.login`; two-hop paths go through a hop another parameter took
    /// first). Nil when one names nothing.
    static func parameterKeyPaths(_ parameters: [String], stem: String, entity: String,
                                  entities: [String: Entity]) -> [String: String]? {
        guard let declared = entities[entity] else { return nil }
        let attributes = Set(declared.attributes.map(\.0))
        var renames: [String: String] = [:]
        let prefix = OpenAPINames.words(stem).joined(separator: "_") + "_"
        var pending: [String] = []
        for parameter in parameters {
            if attributes.contains(parameter) {
                renames[parameter] = parameter
            } else if parameter.hasPrefix(prefix), attributes.contains(String(parameter.dropFirst(prefix.count))) {
                renames[parameter] = String(parameter.dropFirst(prefix.count))
            } else {
                pending.append(parameter)
            }
        }
        func named(_ relationship: Entity.Relationship, _ parameter: String) -> Bool {
            !relationship.toMany && (relationship.name == parameter || (parameter.count >= 3 && relationship.name.hasPrefix(parameter)))
        }
        func label(of name: String) -> String? {
            let attributes = Set(entities[name]?.attributes.map(\.0) ?? [])
            return ["login", "name", "slug", "key", "number", "id"].first { attributes.contains($0) }
        }
        var hops: [String] = []  // the first hops parameters took, in order
        for parameter in pending {
            let near = declared.relationships.sorted { $0.name < $1.name }.first { named($0, parameter) }
            guard let near, let found = label(of: near.entity) else { continue }
            renames[parameter] = near.name + "." + found
            hops.append(near.name)
        }
        for parameter in pending where renames[parameter] == nil {
            let firsts = declared.relationships.filter { !$0.toMany }.sorted { (hops.firstIndex(of: $0.name) ?? Int.max, $0.name)
                < (hops.firstIndex(of: $1.name) ?? Int.max, $1.name) }
            for first in firsts {
                guard let far = entities[first.entity]?.relationships.sorted(by: { $0.name < $1.name }).first(where: { named($0, parameter) }),
                      let found = label(of: far.entity) else { continue }
                renames[parameter] = first.name + "." + far.name + "." + found
                break
            }
            if renames[parameter] == nil { return nil }
        }
        return renames
    }

    /// The schema a 2xx JSON response holds, where (a key path, or the body itself), and whether
    /// it is a list.
    private func responseSchema(_ operation: Node) -> (String, String?, Bool)? {
        guard let responses = operation["responses"] as? Node else { return nil }
        for (status, response) in responses.sorted(by: { $0.key < $1.key }) where status.hasPrefix("2") {
            guard let response = response as? Node,
                  let content = document.resolved(response)["content"] as? Node,
                  let json = content.sorted(by: { $0.key < $1.key }).first(where: { $0.key.hasPrefix("application/") && $0.key.contains("json") })?.value as? Node,
                  let schema = json["schema"] as? Node else { continue }
            if let found = schemaOrList(schema) { return (found.0, nil, found.1) }
            var wrapper = OpenAPISchemas.flattened(schema)
            if let name = OpenAPIDocument.schemaName(wrapper), let component = document.componentSchemas[name] as? Node { wrapper = component }
            for (key, value) in ((wrapper["properties"] as? Node) ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let property = value as? Node, let found = schemaOrList(property) { return (found.0, key, found.1) }
            }
        }
        return nil
    }

    private func schemaOrList(_ schema: Node) -> (String, Bool)? {
        let flat = OpenAPISchemas.flattened(schema)
        if let name = OpenAPIDocument.schemaName(flat) {
            if schemas.index[name] != nil { return (name, false) }
            if let items = schemas.listAliases[name] { return (items, true) }
            return nil
        }
        if (flat["type"] as? String) == "array", let items = flat["items"] as? Node,
           let name = OpenAPIDocument.schemaName(OpenAPISchemas.flattened(items)), schemas.index[name] != nil {
            return (name, true)
        }
        return nil
    }
}
