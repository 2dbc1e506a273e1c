/// The text a path parameter takes from a value: strings as they are, numbers in their shortest form,
/// booleans as `true`/`false`, dates in ISO 8601; `@count` counts an object's members or an array.
enum PathValues {
    static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .null?, nil: nil
        case .object?, .array?: value?.text()
        case let scalar?: scalar.text()
        }
    }

    /// The value at a dotted key path of a JSON object, for interpolating from a dictionary.
    static func lookUp(_ keyPath: String, in value: JSONValue) -> String? {
        var current: JSONValue? = value
        for name in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            if name == "@count" {
                switch current {
                case .object(let members)?: return String(members.count)
                case .array(let elements)?: return String(elements.count)
                default: return nil
                }
            }
            current = current?[name]
        }
        return text(current)
    }
}

extension PathPattern {
    /// The pattern interpolated with the values of a JSON object.
    public func interpolate(values: JSONValue, escaping: Bool) -> String {
        interpolate(escaping: escaping) { PathValues.lookUp($0, in: values) }
    }
}

extension GraphReader {
    /// The value at a dotted key path of a graph object (attributes, through relationships; `@count`
    /// of a to-many), as path text.
    package func pathText(_ keyPath: String, from object: ObjectID) -> String? {
        var current = object
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (position, name) in names.enumerated() {
            guard let kind = store.entityIndex(of: current), model.entities.indices.contains(kind) else { return nil }
            let entity = model.entities[kind]
            let isLast = position == names.count - 1
            if let attribute = entity.attributeIndex(named: name), entity.attributes.indices.contains(attribute) {
                guard isLast else { return nil }
                return PathValues.text(store.attributeValue(of: current, attribute)?.jsonValue)
            }
            guard let relationship = entity.relationshipIndex(named: name), store.links(of: current, relationship) != nil else {
                return nil
            }
            let targets = store.targets(of: current, relationship)
            if position + 1 < names.count, names[position + 1] == "@count", position + 2 == names.count {
                return String(targets.count)
            }
            guard let next = targets.first, !isLast else { return nil }
            current = next
        }
        return nil
    }
}
