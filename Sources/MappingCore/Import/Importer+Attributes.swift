/// Attributes: a payload value (transformed first when the mapping says so) coerced to the
/// attribute's type, with errors that name the JSON path and the attribute.
extension Importer {
    /// Sets one attribute from the representation; returns whether its key was present.
    mutating func applyAttribute(_ attributeMapping: AttributeMappingPlan, from node: Reader.Node,
                                         to object: ObjectID, entity: Entity, isNew: Bool,
                                         defaults: Bool) throws(MappingError) -> Bool {
        let attribute = attributeMapping.attribute
        guard let (found, keyPath) = firstPresent(attributeMapping.alternatives, in: node) else {
            if defaults, isNew, entity.attributes.indices.contains(attribute),
               let value = entity.attributes[attribute].defaultValue {
                store.setValue(value, of: object, attribute: attribute)
            }
            return false
        }
        if case .node(let node) = found, attributeMapping.transformer == nil, entity.attributes.indices.contains(attribute),
           entity.attributes[attribute].type == .string, reader.kind(of: node) == .string {
            // A string into a string attribute: the bytes go from the parser into the graph's
            // arena, with no `String` made in between. They are valid UTF-8 as a `String`'s would
            // be: both parsers refuse invalid bytes and lone surrogate escapes (ParseError).
            let reader = self.reader
            reader.withStringBytes(of: node) { store.setString($0, of: object, attribute: attribute) }
            return true
        }
        switch try coerce(found, attributeMapping, entity, keyPath) {
        case .value(let value): store.setValue(value, of: object, attribute: attribute)
        case .null: store.setValue(nil, of: object, attribute: attribute)
        case .skip: break
        }
        return true
    }

    /// Sets attribute `position` of `mapping` from its gathered member `node`, as `applyAttribute`
    /// would for the route's one key path: the same string path, coercion and errors, without
    /// reaching through the attribute mapping object (rule 11 of `HotPath.md`).
    mutating func applyRouted(_ node: Reader.Node, _ mapping: MappingPlan, _ position: Int, to object: ObjectID,
                              entity: Entity) throws(MappingError) {
        guard mapping.routes.indices.contains(position) else { return }
        let route = mapping.routes[position]
        if route.type == .string, reader.kind(of: node) == .string {
            let reader = self.reader
            reader.withStringBytes(of: node) { store.setString($0, of: object, attribute: route.attribute) }
            return
        }
        switch try coerceRouted(node, mapping, position, entity) {
        case .value(let value): store.setValue(value, of: object, attribute: route.attribute)
        case .null: store.setValue(nil, of: object, attribute: route.attribute)
        case .skip: break
        }
    }

    /// A gathered member as the type of attribute `position`'s route, with `coerceNode`'s errors.
    mutating func coerceRouted(_ node: Reader.Node, _ mapping: MappingPlan, _ position: Int,
                               _ entity: Entity) throws(MappingError) -> Coerced {
        guard mapping.routes.indices.contains(position) else { return .skip }
        do throws(MappingError) {
            return try Coercion.coerce(node, reader: reader, to: mapping.routes[position].type, depthLimit: Self.maxValueDepth)
        } catch {
            guard mapping.attributes.indices.contains(position), let keyPath = mapping.attributes[position].alternatives.first else { throw error }
            throw located(error, mapping.attributes[position], entity, keyPath)
        }
    }

    /// The incoming value as the attribute's type. The common case — a payload value, no
    /// transformer — takes a small function of its own: the transformer path cannot be specialized
    /// across modules, and would otherwise drag the common case into running unspecialized.
    mutating func coerce(_ found: Found, _ attributeMapping: AttributeMappingPlan, _ entity: Entity,
                        _ keyPath: KeyPath) throws(MappingError) -> Coerced {
        if case .node(let node) = found, attributeMapping.transformer == nil {
            return try coerceNode(node, attributeMapping, entity, keyPath)
        }
        return try coerceTransformed(found, attributeMapping, entity, keyPath)
    }

    /// A payload value as the attribute's type, without a transformer.
    mutating func coerceNode(_ node: Reader.Node, _ attributeMapping: AttributeMappingPlan, _ entity: Entity,
                            _ keyPath: KeyPath) throws(MappingError) -> Coerced {
        guard entity.attributes.indices.contains(attributeMapping.attribute) else { return .skip }
        let type = entity.attributes[attributeMapping.attribute].type
        do throws(MappingError) {
            return try Coercion.coerce(node, reader: reader, to: type, depthLimit: Self.maxValueDepth)
        } catch {
            throw located(error, attributeMapping, entity, keyPath)
        }
    }

    /// `error` with the JSON path and the attribute it happened at.
    mutating func located(_ error: MappingError, _ attributeMapping: AttributeMappingPlan, _ entity: Entity,
                         _ keyPath: KeyPath) -> MappingError {
        let declared = entity.attributes[attributeMapping.attribute]
        let where_ = path.text(adding: keyPath)
        return MappingError(error.code, "cannot map \(where_) into \(entity.name).\(declared.name) (\(declared.type.rawValue)): \(error.message)",
                            path: where_, attribute: entity.name + "." + declared.name)
    }

    /// The incoming value as the attribute's type: transformed first if the mapping names a
    /// transformer, then coerced. Errors name the JSON path and the attribute.
    mutating func coerceTransformed(_ found: Found, _ attributeMapping: AttributeMappingPlan, _ entity: Entity,
                        _ keyPath: KeyPath) throws(MappingError) -> Coerced {
        guard entity.attributes.indices.contains(attributeMapping.attribute) else { return .skip }
        let declared = entity.attributes[attributeMapping.attribute]
        do throws(MappingError) {
            let input: JSONValue
            switch found {
            case .node(let node):
                guard attributeMapping.transformer != nil else {
                    return try Coercion.coerce(node, reader: reader, to: declared.type, depthLimit: Self.maxValueDepth)
                }
                input = try reader.copyValue(of: node, depthLimit: Self.maxValueDepth)
            case .value(let value):
                input = value
            }
            guard let transformer = attributeMapping.transformer else {
                return try Coercion.coerce(input, reader: JSONValueReader(), to: declared.type, depthLimit: Self.maxValueDepth)
            }
            switch try transformer.forward(input, hosts: hosts) {
            case .json(let value):
                return try Coercion.coerce(value, reader: JSONValueReader(), to: declared.type, depthLimit: Self.maxValueDepth)
            case .date(let date):
                switch declared.type {
                case .date: return .value(.date(date))
                case .string, .json: return .value(declared.type == .string ? .string(date.iso8601) : .json(JSONText(.string(date.iso8601))))
                default: throw MappingError(.type, "the transformer makes a date, which a \(declared.type.rawValue) attribute cannot hold")
                }
            }
        } catch {
            throw located(error, attributeMapping, entity, keyPath)
        }
    }
}
