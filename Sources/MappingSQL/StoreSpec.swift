import MappingCore

/// Reads JSON text back in its canonical form (`JSONText`: what a `json` attribute holds; its
/// `value` is the tree). The stores parse no JSON themselves: the engine that opens one gives it
/// its parser, for the spec the store recorded and for `json` columns.
public typealias JSONTextReader = @Sendable (String) throws(MappingError) -> JSONText

/// What the engine tells a store it opens: the spec's model, its text in canonical form (parsed and
/// written back, so spacing does not matter: what a new store records and an existing one is
/// compared with), and the parser for the JSON text the store reads back.
public struct StoreSpec: Sendable {
    public let model: Model
    public let text: String
    public let json: JSONTextReader

    public init(model: Model, text: String, json: @escaping JSONTextReader) {
        self.model = model
        self.text = text
        self.json = json
    }

    /// Whether a spec a store recorded is this one. Compared in canonical form: stores written
    /// before the spec was recorded canonically hold it as the caller wrote it.
    package func isRecorded(as recorded: String) -> Bool {
        recorded == text || (try? json(recorded).text) == text
    }
}

/// What opening a store read: the store, which the engine attaches to the context it fills, and
/// every object in it.
public struct OpenedStore {
    public let store: any PersistentStore
    public let objects: [StoredObject]

    public init(store: any PersistentStore, objects: [StoredObject]) {
        self.store = store
        self.objects = objects
    }
}
