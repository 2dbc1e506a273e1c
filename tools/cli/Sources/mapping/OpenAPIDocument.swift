import Foundation
import Yams

/// An OpenAPI 3 document as plain dictionaries, with its `$ref`s followed on request.
struct OpenAPIDocument {
    typealias Node = [String: Any]

    let root: Node

    /// Reads YAML or JSON. JSON goes through Foundation's parser: Yams reads a 3 MB description
    /// (GitHub's) in seconds, JSONSerialization in milliseconds.
    init(path: String, bytes: [UInt8]) throws {
        let loaded: Any?
        let first = bytes.first { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }
        if first == UInt8(ascii: "{"), let json = try? JSONSerialization.jsonObject(with: Data(bytes)) {
            loaded = json
        } else {
            do {
                loaded = try Yams.load(yaml: String(decoding: bytes, as: UTF8.self))
            } catch {
                throw Failure("\(path) is neither YAML nor JSON: \(error)")
            }
        }
        guard let root = loaded as? Node else { throw Failure("\(path) is not an OpenAPI document (no top-level object)") }
        guard let version = root["openapi"] as? String, version.hasPrefix("3.") else {
            throw Failure("\(path) is not an OpenAPI 3 document (its \"openapi\" field is \(root["openapi"].map { "\($0)" } ?? "missing"))")
        }
        self.root = root
    }

    var componentSchemas: Node { ((root["components"] as? Node)?["schemas"] as? Node) ?? [:] }

    /// The component schema a `$ref` names (`#/components/schemas/User` → `User`).
    static func schemaName(_ node: Node) -> String? {
        guard let reference = node["$ref"] as? String, reference.hasPrefix("#/components/schemas/") else { return nil }
        return String(reference.dropFirst("#/components/schemas/".count))
    }

    /// `node` with local `$ref`s (`#/components/responses/…` and the like) followed, at most 16 deep.
    func resolved(_ node: Node) -> Node {
        var node = node
        for _ in 0..<16 {
            guard let reference = node["$ref"] as? String, reference.hasPrefix("#/") else { return node }
            var target: Any? = root
            for step in reference.dropFirst(2).split(separator: "/") {
                let key = String(step).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                target = (target as? Node)?[key]
            }
            guard let next = target as? Node else { return node }
            node = next
        }
        return node
    }

    /// The operations under `paths`, in path then method order.
    var operations: [(path: String, method: String, operation: Node)] {
        var found: [(String, String, Node)] = []
        for (path, item) in ((root["paths"] as? Node) ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let item = item as? Node else { continue }
            for method in ["get", "put", "post", "patch", "delete"] {
                if let operation = item[method] as? Node { found.append((path, method, operation)) }
            }
        }
        return found
    }
}

/// Names for what the document calls `simple-user` or `issue.labels`.
enum OpenAPINames {
    /// The words of a name: `simple-user` and `simpleUser` → `simple`, `user`.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousLower = false
        for character in name {
            if !(character.isLetter || character.isNumber) {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousLower = false
                continue
            }
            if character.isUppercase, previousLower, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(character)
            previousLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words.map { $0.lowercased() }
    }

    /// `simple-user` → `SimpleUser`: entity names.
    static func upperCamel(_ name: String) -> String {
        let joined = words(name).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        guard let first = joined.first else { return "Entity" }
        return first.isLetter ? joined : "E" + joined
    }

    /// `simple-user` → `simpleUser`: mapping names.
    static func lowerCamel(_ name: String) -> String {
        let upper = upperCamel(name)
        return upper.prefix(1).lowercased() + upper.dropFirst()
    }

    /// Words that say how much of a resource a schema shows, or where, not which resource it is
    /// (`issue-search-result-item` is an issue).
    static let qualifiers: Set<String> = ["simple", "public", "private", "full", "minimal", "base", "short", "nullable",
                                          "summary", "basic", "detailed", "extended", "lite", "brief", "compact",
                                          "search", "result", "results", "item"]

    /// The resource a schema's name names: `simple-user`, `public-user` → `user`; `issue-simple` → `issue`.
    static func stem(_ name: String) -> String {
        let all = words(name)
        let kept = all.filter { !qualifiers.contains($0) }
        return (kept.isEmpty ? all : kept).joined(separator: "-")
    }

    /// A property holding a list names its items in the plural: `labels` → `label`.
    static func singular(_ name: String) -> String {
        if name.hasSuffix("ies"), name.count > 3 { return String(name.dropLast(3)) + "y" }
        if name.hasSuffix("s"), !name.hasSuffix("ss"), name.count > 1 { return String(name.dropLast()) }
        return name
    }
}
