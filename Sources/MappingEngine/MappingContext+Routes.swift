import MappingCore

extension MappingContext {
    /// The path of the route for `object` and `method` (or for its relationship, or the route named
    /// `name`, filled from `object` when given): `MAPPING_ENOTFOUND` when there is none.
    public func routePath(name: String? = nil, object: ObjectID?, relationship: String? = nil,
                          method: HTTPMethods, escaping: Bool) throws(MappingError) -> String {
        let route: Route?
        if let name {
            route = spec.routes.named(name)
        } else {
            guard let object else { throw MappingError(.misuse, "a route by entity or relationship needs an object") }
            let entity = try entityName(of: object)
            guard let index = spec.model.entityIndex(named: entity) else { throw MappingError(.failed, "no entity") }
            route = relationship.map { spec.routes.route(forRelationship: $0, of: index, method: method) }
                ?? spec.routes.route(for: index, method: method, model: spec.model)
        }
        guard let route else {
            throw MappingError(.notFound, "no route " + (name.map { "named \"\($0)\"" } ?? "for this object and method"))
        }
        guard let object else { return route.pattern.text }
        return try path(route.pattern, from: object, escaping: escaping)
    }
}
