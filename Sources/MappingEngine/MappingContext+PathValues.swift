import MappingCore

extension MappingContext {
    /// The pattern interpolated with values read from a graph object.
    public func path(_ pattern: PathPattern, from object: ObjectID, escaping: Bool) throws(MappingError) -> String {
        let model = spec.model
        // Reads the rows the pattern's key paths reach (on a store read as touched), no more.
        return try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> String in
            try store.touching(model: model, probing: false) { (store: inout ObjectStore, _) throws(MappingError) -> String in
                let reader = GraphReader(model: model, store: store)
                _ = try reader.entity(of: object)
                return pattern.interpolate(escaping: escaping) { reader.pathText($0, from: object) }
            }
        }
    }
}
