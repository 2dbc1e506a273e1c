/// The object schemas of a document that can become entities: the component schemas that describe
/// objects, and inline objects (a property's own `properties`) that carry an identification, named
/// `owner.property`. What cannot become one is noted with the reason.
struct OpenAPISchemas {
    typealias Node = OpenAPIDocument.Node

    /// One schema that maps onto an entity.
    struct Schema {
        let name: String
        let isInline: Bool
        /// The resource its name names (see `OpenAPINames.stem`).
        let stem: String
        /// Properties by name, in name order.
        var properties: [(key: String, schema: Node)]
        var required: Set<String>
        /// The component an `allOf` builds on (`allOf: [{$ref: base}, {…}]`): a parent entity.
        var base: String?
        /// The example of its `url` with numbers and the last segment made generic: two schemas
        /// whose URLs point at the same kind of resource describe the same resource.
        var urlTemplate: String?
        var identification: String?
    }

    /// What a property becomes.
    enum Kind: Equatable {
        case attribute(String)
        /// A relationship to these schemas (several for `oneOf`), with the discriminator's property
        /// and its values when the document names one.
        case relationship(targets: [String], toMany: Bool, discriminator: Discriminator?)
        /// Kept as a `json` attribute, for this reason.
        case json(String)
        /// Not mapped, for this reason.
        case leftOut(String)
    }

    struct Discriminator: Equatable {
        let property: String
        /// Value → schema name.
        let cases: [(String, String)]

        static func == (a: Discriminator, b: Discriminator) -> Bool {
            a.property == b.property && a.cases.map(\.0) == b.cases.map(\.0) && a.cases.map(\.1) == b.cases.map(\.1)
        }
    }

    private(set) var schemas: [Schema] = []
    private(set) var index: [String: Int] = [:]
    /// Component schemas that are not objects, and why.
    private(set) var notes: [String] = []
    /// Array components whose items are a schema: the name of the items' schema.
    private(set) var listAliases: [String: String] = [:]
    let document: OpenAPIDocument
    /// The document's paths as segments, longest first, for `urlTemplate`.
    private let pathSegments: [[Substring]]
    private let propertyCache = PropertyCache()

    init(_ document: OpenAPIDocument, only selected: Set<String>?) {
        self.document = document
        pathSegments = ((document.root["paths"] as? Node) ?? [:]).keys.sorted()
            .map { $0.split(separator: "/") }.sorted { $0.count > $1.count }
        let components = document.componentSchemas
        for (name, value) in components.sorted(by: { $0.key < $1.key }) {
            guard let node = value as? Node else { continue }
            if let selected, !selected.contains(name) { continue }
            if let schema = objectSchema(name: name, node, isInline: false) {
                add(schema)
            } else if (node["type"] as? String) == "array", let items = node["items"] as? Node {
                if let target = OpenAPIDocument.schemaName(items) {
                    listAliases[name] = target
                } else if let schema = objectSchema(name: name + ".item", items, isInline: true), schema.identification != nil {
                    add(schema)
                    listAliases[name] = schema.name
                } else {
                    notes.append("schema \(name): a list of values without an identification, not an entity (its uses are json)")
                }
            } else if let variants = (node["oneOf"] ?? node["anyOf"]) as? [Node] {
                notes.append("schema \(name): a choice of \(variants.count) shapes without one entity, not an entity (its uses are json)")
            } else {
                notes.append("schema \(name): a \((node["type"] as? String) ?? "untyped") value, not an entity")
            }
        }
        // Inline objects with an identification become schemas of their own, to any depth.
        var position = 0
        while position < schemas.count {
            let schema = schemas[position]
            for (key, property) in schema.properties {
                let flat = Self.flattened(property)
                let items = (flat["type"] as? String) == "array" ? (flat["items"] as? Node).map { Self.flattened($0) } : nil
                guard let object = items ?? Optional(flat), OpenAPIDocument.schemaName(object) == nil,
                      object["properties"] != nil, schema.name.split(separator: ".").count < 4,
                      let inline = objectSchema(name: schema.name + "." + key, object, isInline: true),
                      inline.identification != nil else { continue }
                add(inline)
            }
            position += 1
        }
    }

    private mutating func add(_ schema: Schema) {
        index[schema.name] = schemas.count
        schemas.append(schema)
    }

    subscript(name name: String) -> Schema? { index[name].map { schemas[$0] } }

    /// An object schema from `node`, or nil when it is not one.
    private func objectSchema(name: String, _ node: Node, isInline: Bool) -> Schema? {
        var properties: [String: Node] = [:]
        var required = Set(node["required"] as? [String] ?? [])
        var base: String?
        if let parts = node["allOf"] as? [Node] {
            for part in parts {
                if let reference = OpenAPIDocument.schemaName(part), parts.count > 1, base == nil {
                    base = reference
                }
                let (partProperties, partRequired) = allProperties(part)
                properties.merge(partProperties) { _, new in new }
                required.formUnion(partRequired)
            }
        } else {
            guard (node["type"] as? String) == "object" || node["properties"] != nil else { return nil }
            for (key, value) in (node["properties"] as? Node) ?? [:] { if let value = value as? Node { properties[key] = value } }
        }
        let sorted = properties.sorted { $0.key < $1.key }.map { (key: $0.key, schema: $0.value) }
        let stem = isInline ? OpenAPINames.singular(String(name.split(separator: ".").last ?? Substring(name))) : OpenAPINames.stem(name)
        var schema = Schema(name: name, isInline: isInline, stem: stem, properties: sorted, required: required, base: base)
        schema.urlTemplate = Self.urlTemplate((properties["url"]?["example"]) as? String, paths: pathSegments)
        schema.identification = Self.identification(stem: stem, properties: sorted, document: document)
        return schema
    }

    /// The properties a schema has, its `$ref`s and `allOf` parts followed (an inherited base's
    /// properties included), and those it requires.
    /// Each component once: what it resolves to is kept, and a component met again while it is
    /// being resolved (an `allOf` cycle) adds nothing.
    final class PropertyCache {
        var resolved: [String: ([String: Node], Set<String>)] = [:]
        var resolving: Set<String> = []
    }

    func allProperties(_ node: Node) -> ([String: Node], Set<String>) {
        Self.allProperties(node, document, cache: propertyCache)
    }

    static func allProperties(_ node: Node, _ document: OpenAPIDocument, cache: PropertyCache) -> ([String: Node], Set<String>) {
        if let name = OpenAPIDocument.schemaName(node) {
            if let done = cache.resolved[name] { return done }
            guard let component = document.componentSchemas[name] as? Node, cache.resolving.insert(name).inserted else { return ([:], []) }
            let result = allProperties(component, document, cache: cache)
            cache.resolving.remove(name)
            cache.resolved[name] = result
            return result
        }
        var properties: [String: Node] = [:]
        var required = Set(node["required"] as? [String] ?? [])
        for part in (node["allOf"] as? [Node]) ?? [] {
            let (inner, innerRequired) = allProperties(part, document, cache: cache)
            properties.merge(inner) { _, new in new }
            required.formUnion(innerRequired)
        }
        for (key, value) in (node["properties"] as? Node) ?? [:] { if let value = value as? Node { properties[key] = value } }
        return (properties, required)
    }

    /// `allOf` of one part (a common way to annotate a `$ref` with `nullable`) read as that part; a
    /// component `$ref` read as the component (for its type), one level.
    static func flattened(_ schema: Node) -> Node {
        if let parts = schema["allOf"] as? [Node], parts.count == 1 { return parts[0] }
        return schema
    }

    /// The property that identifies a schema's objects: the first of `id`, `uuid`, `<stem>Id`,
    /// `<stem>_id`, `sha`, `node_id`, `key`, `slug`, `url` that is a string or an integer.
    static func identification(stem: String, properties: [(key: String, schema: Node)], document: OpenAPIDocument) -> String? {
        let joined = OpenAPINames.words(stem).joined()
        let candidates = ["id", "uuid", joined + "id", joined + "_id", "sha", "node_id", "nodeid", "key", "slug", "url"]
        for candidate in candidates {
            for (key, schema) in properties where key.lowercased() == candidate || (key.lowercased().replacingOccurrences(of: "_", with: "") == candidate && candidate == joined + "id") {
                let type = scalarType(flattened(schema))
                if type == "integer" || type == "string" { return key }
            }
        }
        return nil
    }

    static func scalarType(_ schema: Node) -> String? {
        if let type = schema["type"] as? String { return type }
        return (schema["type"] as? [String])?.first { $0 != "null" }
    }

    /// The document path an example URL is an instance of
    /// (`https://api.github.com/repos/octocat/Hello-World/issues/1347` →
    /// `/repos/{owner}/{repo}/issues/{issue_number}`): two schemas whose URLs are the same
    /// resource's describe that resource. Nil without an example or a path it fits.
    static func urlTemplate(_ example: String?, paths: [[Substring]]) -> String? {
        guard let example, let schemeEnd = example.range(of: "://") else { return nil }
        let segments = example[schemeEnd.upperBound...].split(separator: "?").first?.split(separator: "/").dropFirst() ?? []
        for path in paths where !path.isEmpty && path.count <= segments.count {
            // The path, after whatever base the server adds (a prefix of literal segments).
            let tail = segments.suffix(path.count)
            if zip(path, tail).allSatisfy({ pattern, value in pattern.contains("{") || pattern == value }),
               path.contains(where: { !$0.contains("{") }) {
                return "/" + path.joined(separator: "/")
            }
        }
        return nil
    }

    /// What the property `schema` becomes.
    func kind(_ schema: Node, owner: String, key: String) -> Kind {
        if key.isEmpty { return .leftOut("an empty name") }
        if key.contains(".") { return .leftOut("a dot in its name would read as a key path") }
        if let reference = OpenAPIDocument.schemaName(Self.flattened(schema)) { return target(reference, toMany: false) }
        let flat = Self.flattened(schema)
        if index[owner + "." + key] != nil {
            return .relationship(targets: [owner + "." + key], toMany: (flat["type"] as? String) == "array", discriminator: nil)
        }
        if let variants = (flat["oneOf"] ?? flat["anyOf"]) as? [Node] { return choice(flat, variants, toMany: false) }
        switch Self.scalarType(flat) {
        case "integer": return .attribute("integer")
        case "number": return .attribute((flat["format"] as? String) == "decimal" ? "decimal" : "double")
        case "boolean": return .attribute("boolean")
        case "string":
            switch flat["format"] as? String {
            case "date-time", "date": return .attribute("date")
            case "decimal": return .attribute("decimal")
            default: return .attribute("string")
            }
        case "array":
            guard let items = flat["items"] as? Node else { return .json("an array of anything") }
            let itemsFlat = Self.flattened(items)
            if let reference = OpenAPIDocument.schemaName(itemsFlat) { return target(reference, toMany: true) }
            if let variants = (itemsFlat["oneOf"] ?? itemsFlat["anyOf"]) as? [Node] { return choice(itemsFlat, variants, toMany: true) }
            switch Self.scalarType(itemsFlat) {
            case let type where type == "object" || (type == nil && itemsFlat["properties"] != nil):
                return .json("an array of inline objects without an identification")
            case "array": return .json("an array of arrays")
            default: return .attribute("json")  // a list of scalars: json is its natural type
            }
        case let type where type == "object" || (type == nil && flat["properties"] != nil):
            return .json("an inline object without an identification")
        default:
            return .json(flat.isEmpty ? "a value of any type" : "a value of no single type")
        }
    }

    /// A relationship to a component, or json when the component is not an entity.
    private func target(_ reference: String, toMany: Bool) -> Kind {
        if index[reference] != nil { return .relationship(targets: [reference], toMany: toMany, discriminator: nil) }
        if let items = listAliases[reference], !toMany { return .relationship(targets: [items], toMany: true, discriminator: nil) }
        if document.componentSchemas[reference] == nil { return .leftOut("$ref to \(reference), which the document lacks") }
        return .json("\(reference) is not an entity")
    }

    /// `oneOf` / `anyOf`: a relationship when every variant is an entity schema, with the
    /// discriminator when there is one.
    private func choice(_ schema: Node, _ variants: [Node], toMany: Bool) -> Kind {
        let names = variants.compactMap { OpenAPIDocument.schemaName(Self.flattened($0)) }
        guard names.count == variants.count, names.allSatisfy({ index[$0] != nil }) else {
            return .json("a choice of shapes that are not all entities")
        }
        var discriminator: Discriminator?
        if let node = schema["discriminator"] as? Node, let property = node["propertyName"] as? String {
            var cases: [(String, String)] = []
            if let mapping = node["mapping"] as? [String: String] {
                for (value, reference) in mapping.sorted(by: { $0.key < $1.key }) {
                    // A reference, or (as OpenAPI allows) a bare schema name.
                    let name = OpenAPIDocument.schemaName(["$ref": reference]) ?? reference
                    if index[name] != nil { cases.append((value, name)) }
                }
            } else {
                cases = names.map { ($0, $0) }  // OpenAPI's default: the value is the schema's name
            }
            if !cases.isEmpty { discriminator = Discriminator(property: property, cases: cases) }
        }
        return .relationship(targets: names, toMany: toMany, discriminator: discriminator)
    }
}
