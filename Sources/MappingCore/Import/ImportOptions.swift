/// What an import may be given besides the payload: metadata for `@metadata.` key paths, and
/// callbacks that follow the mapping as it goes.
public struct ImportOptions: Sendable {
    /// Caller-supplied values, readable as `@metadata.<path>` (e.g. HTTP details). The engine adds
    /// `@metadata.mapping.collectionIndex` (the position in the enclosing array; null outside one) and
    /// `@metadata.mapping.parentObject.<attribute>` (an attribute of the object being mapped one
    /// level up).
    public var metadata: JSONValue
    /// Called around each collection and object, in FastEasyMapping's order: will-map collection,
    /// then per element will-map object … did-map object, then did-map collection.
    public var onEvent: (@Sendable (ImportEvent) -> Void)?
    /// Called with (objects mapped, representations the import will map) every `progressInterval`
    /// objects and once at the end (then done == known). The total is counted before the first call
    /// (`Importer+Progress`); a chunked import's grows chunk by chunk.
    public var onProgress: (@Sendable (_ done: Int, _ known: Int) -> Void)?
    public var progressInterval: Int
    /// Orphan deletion (RestKit's fetch-request blocks): after the import, the objects of this entity
    /// (sub-entities too) that match the predicate (all, if `nil`) and that the import did not touch —
    /// map, skip as unmodified, or reach by identity — are deleted, applying delete rules.
    public var orphanScope: (entity: String, predicate: String?)?
    /// Maps the payload's root with each mapping, ignoring their `rootPath`s (a chunked import's
    /// chunks are arrays of representations, whatever the mapping's `rootPath` says).
    public var mapsAtRoot = false
    /// Set by response mapping only (`HTTPResponse`): where each mapping of the import is applied,
    /// instead of its `rootPath` (one entry per mapping; `nil` = the payload's root). A key path the
    /// payload lacks maps nothing; only when every one is missing is it an error.
    package var keyPaths: [String?]?
    /// Set by response mapping only: `HTTPResponse.target`.
    package var targetObject: ObjectID?
    /// The parser for this import's payload; `nil` uses the context's (`MappingContext.parser`).
    public var parser: JSONBackend?
    /// Counts how the payload fit the mappings (`ImportAudit`): key paths that matched nothing,
    /// representations without their identification. The counts are added as the import ends.
    public var audit: ImportAudit?
    /// Makes the audit's warnings errors (MAPPING_EMAPPING): the import then changes nothing.
    public var strict = false

    public init(metadata: JSONValue = .null, onEvent: (@Sendable (ImportEvent) -> Void)? = nil,
                onProgress: (@Sendable (_ done: Int, _ known: Int) -> Void)? = nil, progressInterval: Int = 256,
                orphanScope: (entity: String, predicate: String?)? = nil) {
        self.metadata = metadata
        self.onEvent = onEvent
        self.onProgress = onProgress
        self.progressInterval = max(1, progressInterval)
        self.orphanScope = orphanScope
    }
}

/// One step of an import, for `ImportOptions.onEvent`. Handles of objects created by an import that
/// later fails are stale once it has failed.
public enum ImportEvent: Sendable, Equatable {
    case willMapCollection(mapping: String, count: Int)
    case willMapObject(mapping: String)
    case didMapObject(mapping: String, object: ObjectID)
    case didMapCollection(mapping: String, count: Int)
}
