import MappingCore

extension MappingContext {
    /// The parameters of a request for `objects` and `method`: each object written by its request
    /// descriptor's mapping, one object as an object and several as an array, wrapped in the
    /// descriptor's root key path (several objects must share it), as JSON or form-encoded text.
    public func parameters(for objects: [ObjectID], method: HTTPMethods, form: Bool) throws(MappingError) -> String {
        guard !objects.isEmpty else { throw MappingError(.misuse, "no objects to parameterize") }
        var descriptors: [RequestDescriptor] = []
        for object in objects {
            let name = try entityName(of: object)
            guard let entity = spec.model.entityIndex(named: name),
                  let descriptor = spec.requestDescriptor(for: entity, method: method) else {
                throw MappingError(.notFound, "no request descriptor for a \(name) and this method")
            }
            descriptors.append(descriptor)
        }
        let root = descriptors.first?.rootKeyPath
        guard descriptors.allSatisfy({ $0.rootKeyPath == root }) else {
            throw MappingError(.misuse, "the objects' request descriptors have different root key paths")
        }
        var bodies: [JSONValue] = []
        for (object, descriptor) in zip(objects, descriptors) {
            bodies.append(try serializedDocument(mapping: spec.name(of: descriptor.mapping), objects: [object], asList: false,
                                                 options: [.omitRootPath, .includeNulls]))
        }
        var document: JSONValue = bodies.count == 1 ? bodies.first ?? .null : .array(bodies)
        if let root { for step in KeyPath(root).steps.reversed() { document = .object([JSONMember(step.key.name, document)]) } }
        if form {
            guard let encoded = FormEncoder.encode(document) else {
                throw MappingError(.misuse, "form parameters need an object at the top: give the request descriptor a rootKeyPath")
            }
            return encoded
        }
        return document.text()
    }
}
