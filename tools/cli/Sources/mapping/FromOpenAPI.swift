import ArgumentParser
import Foundation
import MappingCore
import MappingEngine
import MappingJSON
import Yams

/// `mapping spec from-openapi api.yaml`: a draft spec from an OpenAPI 3 document (YAML or JSON).
struct FromOpenAPI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "from-openapi",
        abstract: "Draft a spec from an OpenAPI 3 document (YAML or JSON).",
        discussion: """
            Entities come from the object schemas under components/schemas (scalar properties become \
            attributes, $refs and arrays of $refs relationships), identification from an id-like \
            property, mappings one per entity, and routes and response descriptors from the paths \
            whose 2xx JSON responses are those schemas. Review the draft: inverses, delete rules and \
            date formats are for you to add. `mapping check` accepts what this prints.
            """)

    @Argument(help: "The OpenAPI document.") var document: String

    func run() throws {
        let text = try readText(document)
        let loaded: Any?
        do {
            loaded = try Yams.load(yaml: text)
        } catch {
            throw Failure("\(document) is neither YAML nor JSON: \(error)")
        }
        guard let root = loaded as? [String: Any] else { throw Failure("\(document) is not an OpenAPI document (no top-level object)") }
        guard let version = root["openapi"] as? String, version.hasPrefix("3.") else {
            throw Failure("\(document) is not an OpenAPI 3 document (its \"openapi\" field is \(root["openapi"].map { "\($0)" } ?? "missing"))")
        }
        var draft = OpenAPIDraft(root)
        let spec = draft.spec()
        let text2 = spec.text(pretty: true)
        _ = try engine { () throws(MappingError) in try CompiledSpec.load(json: text2) }  // the draft must load
        print(text2)
        for note in draft.notes { printError("note: " + note) }
    }
}

/// The walk from an OpenAPI document to a spec.
struct OpenAPIDraft {
    let root: [String: Any]
    /// Component schemas that are objects, by name, in document order.
    let schemas: [(name: String, schema: [String: Any])]
    private(set) var notes: [String] = []

    init(_ root: [String: Any]) {
        self.root = root
        let components = (root["components"] as? [String: Any])?["schemas"]
        var found: [(String, [String: Any])] = []
        // Yams keeps mapping order in its Node, not in [String: Any]: sort for a stable draft.
        for (name, value) in ((components as? [String: Any]) ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let schema = value as? [String: Any], Self.isObject(Self.flattened(schema)) { found.append((name, Self.flattened(schema))) }
        }
        schemas = found
    }

    /// `allOf` of one `$ref` (a common way to annotate a reference) read as the reference itself;
    /// `allOf` of objects merged.
    static func flattened(_ schema: [String: Any]) -> [String: Any] {
        guard let parts = schema["allOf"] as? [[String: Any]] else { return schema }
        if parts.count == 1 { return parts[0] }
        var merged: [String: Any] = ["type": "object"]
        var properties: [String: Any] = [:]
        for part in parts {
            for (key, value) in (part["properties"] as? [String: Any]) ?? [:] { properties[key] = value }
        }
        merged["properties"] = properties
        return merged
    }

    static func isObject(_ schema: [String: Any]) -> Bool {
        (schema["type"] as? String) == "object" || schema["properties"] != nil
    }

    /// The component a `$ref` names (`#/components/schemas/User` → `User`), if it is one of ours.
    func referenced(_ schema: [String: Any]) -> String? {
        let schema = Self.flattened(schema)
        guard let reference = schema["$ref"] as? String, reference.hasPrefix("#/components/schemas/") else { return nil }
        let name = String(reference.dropFirst("#/components/schemas/".count))
        return schemas.contains { $0.name == name } ? name : nil
    }

    /// A property: an attribute type, or a relationship to an entity (to-many for arrays).
    enum Property {
        case attribute(String)
        case relationship(entity: String, toMany: Bool)
    }

    func property(_ schema: [String: Any]) -> Property {
        if let target = referenced(schema) { return .relationship(entity: target, toMany: false) }
        let schema = Self.flattened(schema)
        let type = (schema["type"] as? String) ?? ((schema["type"] as? [String])?.first { $0 != "null" })
        switch type {
        case "integer": return .attribute("integer")
        case "number": return .attribute((schema["format"] as? String) == "decimal" ? "decimal" : "double")
        case "boolean": return .attribute("boolean")
        case "string":
            switch schema["format"] as? String {
            case "date-time", "date": return .attribute("date")
            case "decimal": return .attribute("decimal")
            default: return .attribute("string")
            }
        case "array":
            if let items = schema["items"] as? [String: Any], let target = referenced(items) {
                return .relationship(entity: target, toMany: true)
            }
            return .attribute("json")
        default:
            return .attribute("json")
        }
    }

    /// The property that identifies an entity's objects: `id`, then `uuid`, `<entity>Id`,
    /// `<entity>_id`, `key`, `slug` — the first that is a scalar.
    static func identification(of entity: String, attributes: [(String, String)]) -> String? {
        let lowered = entity.lowercased()
        let candidates = ["id", "uuid", lowered + "id", lowered + "_id", "key", "slug"]
        for candidate in candidates {
            if let (name, type) = attributes.first(where: { $0.0.lowercased() == candidate }), ["integer", "string"].contains(type) {
                return name
            }
        }
        return nil
    }

    static func mappingName(_ entity: String) -> String {
        guard let first = entity.first else { return entity }
        return first.lowercased() + entity.dropFirst()
    }

    mutating func spec() -> JSONValue {
        var entities: [JSONMember] = []
        var mappings: [JSONMember] = []
        for (name, schema) in schemas {
            let properties = ((schema["properties"] as? [String: Any]) ?? [:]).sorted { $0.key < $1.key }
            var attributes: [(String, String)] = []
            var relationships: [JSONMember] = []
            var attributeKeys: [JSONMember] = []
            var relationshipKeys: [JSONMember] = []
            for (key, value) in properties {
                guard let propertySchema = value as? [String: Any] else { continue }
                switch property(propertySchema) {
                case .attribute(let type):
                    attributes.append((key, type))
                    attributeKeys.append(JSONMember(key, .string(key)))
                case .relationship(let target, let toMany):
                    var declaration = [JSONMember("entity", .string(target))]
                    if toMany { declaration += [JSONMember("toMany", .bool(true)), JSONMember("ordered", .bool(true))] }
                    relationships.append(JSONMember(key, .object(declaration)))
                    relationshipKeys.append(JSONMember(key, .object([JSONMember("keyPath", .string(key)),
                                                                     JSONMember("mapping", .string(Self.mappingName(target)))])))
                }
            }
            var entity = [JSONMember("attributes", .object(attributes.map { JSONMember($0.0, .string($0.1)) }))]
            if !relationships.isEmpty { entity.append(JSONMember("relationships", .object(relationships))) }
            if let id = Self.identification(of: name, attributes: attributes) {
                entity.append(JSONMember("identification", .array([.string(id)])))
            } else {
                entity.append(JSONMember("identification", .null))
                notes.append("\(name) has no id-like property: its objects have no identity (each import makes new ones)")
            }
            entities.append(JSONMember(name, .object(entity)))
            var mapping = [JSONMember("entity", .string(name)), JSONMember("attributes", .object(attributeKeys))]
            if !relationshipKeys.isEmpty { mapping.append(JSONMember("relationships", .object(relationshipKeys))) }
            mappings.append(JSONMember(Self.mappingName(name), .object(mapping)))
        }
        var members = [JSONMember("entities", .object(entities)), JSONMember("mappings", .object(mappings))]
        let (routes, descriptors) = endpoints(attributesOf: Dictionary(uniqueKeysWithValues: entities.map { member in
            (member.key, Set(member.value.object?.first { $0.key == "attributes" }?.value.object?.map(\.key) ?? []))
        }))
        if !routes.isEmpty { members.append(JSONMember("routes", .array(routes))) }
        if !descriptors.isEmpty { members.append(JSONMember("responseDescriptors", .array(descriptors))) }
        return .object(members)
    }

    /// Routes (an entity's GET/PUT/PATCH/DELETE paths whose parameters are its attributes) and
    /// response descriptors (paths whose 2xx JSON response is an entity, a list of one, or an
    /// object holding either under one key).
    mutating func endpoints(attributesOf: [String: Set<String>]) -> (routes: [JSONValue], descriptors: [JSONValue]) {
        var routes: [JSONValue] = []
        var descriptors: [JSONValue] = []
        let paths = ((root["paths"] as? [String: Any]) ?? [:]).sorted { $0.key < $1.key }
        for (path, item) in paths {
            guard let operations = item as? [String: Any] else { continue }
            let (pattern, parameters) = Self.pattern(path)
            for method in ["get", "post", "put", "patch", "delete"] {
                guard let operation = operations[method] as? [String: Any],
                      let (entity, keyPath, isList) = responseEntity(operation) else { continue }
                var descriptor = [JSONMember("mapping", .string(Self.mappingName(entity))),
                                  JSONMember("method", .string(method.uppercased())),
                                  JSONMember("pathPattern", .string(pattern))]
                if let keyPath { descriptor.append(JSONMember("keyPath", .string(keyPath))) }
                descriptors.append(.object(descriptor))
                if !isList, method != "post", !parameters.isEmpty, parameters.isSubset(of: attributesOf[entity] ?? []) {
                    routes.append(.object([JSONMember("entity", .string(entity)), JSONMember("method", .string(method.uppercased())),
                                           JSONMember("path", .string(pattern))]))
                }
            }
        }
        return (routes, descriptors)
    }

    /// `/users/{id}/repos` → `/users/:id/repos` and its parameter names.
    static func pattern(_ path: String) -> (String, Set<String>) {
        var result = ""
        var parameters: Set<String> = []
        var name: String?
        for character in path {
            if character == "{" {
                name = ""
            } else if character == "}", let done = name {
                result += ":" + done
                parameters.insert(done)
                name = nil
            } else if name != nil {
                name?.append(character)
            } else {
                result.append(character)
            }
        }
        return (result, parameters)
    }

    /// The entity a 2xx JSON response holds, where (a key path, or the body itself), and whether
    /// it is a list.
    func responseEntity(_ operation: [String: Any]) -> (String, String?, Bool)? {
        guard let responses = operation["responses"] as? [String: Any] else { return nil }
        for (status, response) in responses.sorted(by: { $0.key < $1.key }) where status.hasPrefix("2") {
            guard let content = (response as? [String: Any])?["content"] as? [String: Any],
                  let json = content.first(where: { $0.key.hasPrefix("application/json") })?.value as? [String: Any],
                  let schema = json["schema"] as? [String: Any] else { continue }
            if let found = entityOrList(schema) { return (found.0, nil, found.1) }
            let flat = Self.flattened(schema)
            for (key, value) in ((flat["properties"] as? [String: Any]) ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let property = value as? [String: Any], let found = entityOrList(property) { return (found.0, key, found.1) }
            }
        }
        return nil
    }

    private func entityOrList(_ schema: [String: Any]) -> (String, Bool)? {
        if let entity = referenced(schema) { return (entity, false) }
        if (Self.flattened(schema)["type"] as? String) == "array", let items = Self.flattened(schema)["items"] as? [String: Any],
           let entity = referenced(items) {
            return (entity, true)
        }
        return nil
    }
}

extension JSONValue {
    var object: [JSONMember]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
