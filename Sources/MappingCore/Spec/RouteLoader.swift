/// Reads the `routes` section: `[{"entity" | "name", "relationship"?, "method", "path"}]`, rejecting
/// what RestKit's route set rejects (a named route for several or any method, a duplicate name, a
/// second entity route for the same methods unless one is `ANY`, a duplicate relationship route).
enum RouteLoader {
    static func load(_ value: JSONValue?, model: Model) throws(MappingError) -> RouteTable {
        guard let value else { return RouteTable(routes: []) }
        guard case .array(let elements) = value else {
            throw MappingError(.spec, "expected an array of routes", path: "$.routes")
        }
        var routes: [Route] = []
        for (offset, element) in elements.enumerated() {
            let object = try SpecObject(element, path: JSONPathText.appending("$.routes", index: offset))
            try object.allowKeys(["entity", "name", "relationship", "method", "path"])
            guard let pathText = try object.string("path") else {
                throw MappingError(.spec, "missing required key \"path\"", path: object.path)
            }
            let pattern: PathPattern
            do { pattern = try PathPattern(pathText) } catch { throw MappingError(.spec, error.message, path: object.path("path")) }
            let methods = try self.methods(object)
            let target: Route.Target
            switch (try object.string("name"), try object.string("entity")) {
            case (let name?, nil):
                guard methods.isSingle else {
                    throw MappingError(.spec, "a named route needs one method, not ANY or several", path: object.path("method"))
                }
                guard !routes.contains(where: { $0.target == .named(name) }) else {
                    throw MappingError(.spec, "a route named \"\(name)\" already exists", path: object.path("name"))
                }
                target = .named(name)
            case (nil, let entityName?):
                guard let entity = model.entity(named: entityName) else {
                    throw model.unknownEntity(entityName, code: .spec, path: object.path("entity"))
                }
                if let relationship = try object.string("relationship") {
                    guard entity.relationshipIndex(named: relationship) != nil else {
                        throw entity.unknownRelationship(relationship, code: .spec, path: object.path("relationship"))
                    }
                    target = .relationship(relationship, entity: entity.index)
                    guard !routes.contains(where: { $0.target == target && $0.methods == methods }) else {
                        throw MappingError(.spec, "a route for \(entityName).\(relationship) and these methods already exists", path: object.path)
                    }
                } else {
                    target = .entity(entity.index)
                    guard !routes.contains(where: { $0.target == target && $0.methods == methods && methods != .any }) else {
                        throw MappingError(.spec, "a route for \(entityName) and these methods already exists", path: object.path)
                    }
                }
            default:
                throw MappingError(.spec, "a route needs exactly one of \"name\" and \"entity\"", path: object.path)
            }
            routes.append(Route(target: target, methods: methods, pattern: pattern))
        }
        return RouteTable(routes: routes)
    }

    /// `"GET"`, `"ANY"` or `["HEAD", "GET"]`.
    static func methods(_ object: SpecObject) throws(MappingError) -> HTTPMethods {
        guard let value = object["method"] else { return .any }
        var names: [String] = []
        switch value {
        case .string(let name): names = [name]
        case .array(let elements):
            for element in elements {
                guard case .string(let name) = element else { throw MappingError(.spec, "expected method names", path: object.path("method")) }
                names.append(name)
            }
        default: throw MappingError(.spec, "expected a method name or a list of them", path: object.path("method"))
        }
        var methods: HTTPMethods = []
        for name in names {
            guard let method = HTTPMethods(name: name) else {
                throw MappingError(.spec, "unknown HTTP method \"\(name)\"", path: object.path("method"))
            }
            methods.formUnion(method)
        }
        guard !methods.isEmpty else { throw MappingError(.spec, "at least one method", path: object.path("method")) }
        return methods
    }
}
