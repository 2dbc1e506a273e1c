import MappingCore
import MappingLock
import MappingJSON
import MappingSQL
import MappingSQLite
#if MAPPING_POSTGRES
import MappingPostgres
#endif

/// How a store is opened (`mapping_context_open`'s flags).
public struct StoreOptions: Sendable {
    /// Make the store when there is none.
    public var create = true
    /// Refuse every commit (the file or schema is not changed).
    public var readOnly = false
    /// SQLite: every commit survives power loss (`synchronous=FULL`).
    public var durable = false
    /// When the spec changed beyond growth: drop the store's objects and start over.
    public var rebuild = false
    /// PostgreSQL: bring in other processes' commits before each call.
    public var follow = true

    public init(create: Bool = true, readOnly: Bool = false, durable: Bool = false, rebuild: Bool = false, follow: Bool = true) {
        self.create = create
        self.readOnly = readOnly
        self.durable = durable
        self.rebuild = rebuild
        self.follow = follow
    }
}

extension MappingContext {
    /// A context on the store at `location` — an SQLite file's path, or a `postgresql://` URI —
    /// for the spec given as JSON text, holding every object the store keeps. The one way the C
    /// API and the `mapping` tool open a store.
    public static func open(specJSON bytes: UnsafeRawBufferPointer, at location: String,
                            options: StoreOptions = StoreOptions()) throws(MappingError) -> MappingContext {
        let document = try CompiledSpec.document(json: bytes)
        let context = try MappingContext(spec: try CompiledSpec.load(document))
        try context.attach(try openStore(at: location, spec: storeSpec(document, model: context.model), options: options))
        return context
    }

    /// A context on the store at `location`, with the spec the store recorded: what a program that
    /// has only the store (the `mapping` tool's `query`) opens it with.
    public static func open(recordedAt location: String, options: StoreOptions) throws(MappingError) -> MappingContext {
        let recorded: String = switch try StoreBackend(location) {
        case .sqlite: try SQLiteStore.recordedSpec(at: location)
        #if MAPPING_POSTGRES
        case .postgres: try PostgresStore.recordedSpec(at: location)
        #endif
        }
        return try open(specJSON: recorded, at: location, options: options)
    }

    /// Whether `location` names a database server (a `postgresql://` URI) rather than a file.
    public static func isServerLocation(_ location: String) -> Bool { StoreLocation.isPostgreSQL(location) }

    /// What a store is told of a spec (`document`, whose model is `model`): its canonical text, and
    /// jansson to read JSON text back with.
    public static func storeSpec(_ document: JSONValue, model: Model) -> StoreSpec {
        StoreSpec(model: model, text: document.text()) { (text) throws(MappingError) -> JSONText in
            try JanssonDocument.parse(text).text()
        }
    }

    /// Opens the store at `location` with the backend it names: a `postgresql://` URI, else an
    /// SQLite file's path.
    public static func openStore(at location: String, spec: StoreSpec, options: StoreOptions) throws(MappingError) -> OpenedStore {
        switch try StoreBackend(location) {
        case .sqlite:
            return try SQLiteStore.open(location, spec: spec,
                                        options: SQLiteStore.Options(create: options.create, readOnly: options.readOnly,
                                                                     durable: options.durable, rebuild: options.rebuild))
        #if MAPPING_POSTGRES
        case .postgres:
            return try PostgresStore.open(location, spec: spec,
                                          options: PostgresStore.Options(create: options.create, readOnly: options.readOnly,
                                                                         rebuild: options.rebuild, follow: options.follow))
        #endif
        }
    }

    public static func open(specJSON text: String, at location: String,
                            options: StoreOptions = StoreOptions()) throws(MappingError) -> MappingContext {
        try withBytes(of: Array(text.utf8)) { (buffer) throws(MappingError) in
            try open(specJSON: buffer, at: location, options: options)
        }
    }
}

/// The store backend a location names: a `postgresql://` URI is PostgreSQL (MAPPING_EUNAVAILABLE
/// in a build without it), anything else an SQLite file's path.
private enum StoreBackend {
    case sqlite
    #if MAPPING_POSTGRES
    case postgres
    #endif

    init(_ location: String) throws(MappingError) {
        try StoreLocation.check(location)
        guard StoreLocation.isPostgreSQL(location) else {
            self = .sqlite
            return
        }
        #if MAPPING_POSTGRES
        self = .postgres
        #else
        throw MappingError(.unavailable, "this build of libmapping has no PostgreSQL store (it was built without libpq-dev)")
        #endif
    }
}
