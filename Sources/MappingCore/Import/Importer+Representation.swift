/// Reading the representation: key paths below the current node, `@parent.`/`@root.` anchors
/// and `@metadata.` values.
extension Importer {
    /// What an attribute's key path found. Internal, not private: see rule 8 of `HotPath.md`.
    typealias Found = FoundValue<Reader.Node>

    /// The node at `keyPath` below `node` (or below a parent representation or the payload's root,
    /// for `@parent.`/`@root.` paths); `nil` when a step is missing or lands on `null` midway.
    mutating func resolve(_ keyPath: KeyPath, in node: Reader.Node) -> Reader.Node? {
        if let member = keyPath.member, let found = gathered(member, in: node) { return found }
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
    mutating func intermediates(of keyPath: KeyPath, in node: Reader.Node) -> [Reader.Node] {
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

    mutating func firstPresent(_ alternatives: [KeyPath], in node: Reader.Node) -> (Found, KeyPath)? {
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
    mutating func metadataValue(_ keyPath: KeyPath) -> JSONValue? {
        let names = keyPath.steps.map(\.key.name)
        if names == ["mapping", "collectionIndex"] {
            guard let index = collectionIndexes.last else { return nil }
            return index.map { .integer(Int64($0)) } ?? .null
        }
        if names.count == 3, names[0] == "mapping", names[1] == "parentObject" {
            guard let parent = parentObjects.last ?? nil, let kind = store.entityIndex(of: parent),
                  model.entities.indices.contains(kind),
                  let attribute = model.entities[kind].attributeIndex(named: names[2]) else { return nil }
            return store.attributeValue(of: parent, attribute)?.jsonValue ?? .null
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
