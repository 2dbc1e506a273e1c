import MappingCore

extension MappingContext {
    /// The pattern interpolated with values read from a graph object.
    public func path(_ pattern: PathPattern, from object: ObjectID, escaping: Bool) throws(MappingError) -> String {
        let model = spec.model
        return try withGraph { (store: inout ObjectStore) throws(MappingError) -> String in
            let reader = GraphReader(model: model, store: store)
            _ = try reader.entity(of: object)
            return pattern.interpolate(escaping: escaping) { reader.pathText($0, from: object) }
        }
    }
}
