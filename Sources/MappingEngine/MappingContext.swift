import MappingCore
import MappingJSON
import MappingArena
import MappingLock

/// A spec and the graph it describes. Several threads may use one context at once: every call
/// takes the context's lock, so calls are serialized and each sees the graph between calls, never
/// halfway through an import. A transaction opened with `begin()` belongs to its thread: other
/// threads' calls wait until it ends (see `TransactionLock`). Several contexts are fully independent.
public final class MappingContext: Sendable {
    public let spec: CompiledSpec
    let graph: TransactionLock<ObjectStore>
    let observers = ObserverList()
    let observerCalls = ObserverCalls()
    private let transformers = Locked<[String: HostTransformer]>([:])
    private let parserChoice = Locked<JSONBackend>(.jansson)
    /// The simdjson parsers kept between this context's imports, freed with it.
    package let parsers = ParserPool()
    private let inputLimit = Locked<Int>(0)
    /// Where warnings no call returns go (`setWarningHandler`).
    let warningHandler = Locked<(@Sendable (String) -> Void)?>(nil)
    /// Told what the store's invariant check found broken after a call; the check runs only when
    /// this is set (the test suites set it: it walks the whole graph).
    private let invariantReport: (@Sendable ([String]) -> Void)?

    /// Throws `.range` only when 65,535 contexts are alive at once (see `HandleSpace`).
    public init(spec: CompiledSpec, onInvariantViolation: (@Sendable ([String]) -> Void)? = nil) throws(MappingError) {
        self.spec = spec
        invariantReport = onInvariantViolation
        graph = TransactionLock(ObjectStore(model: spec.model, space: try HandleSpace.lease()),
                                busyTimeout: MappingContext.defaultBusyTimeout, heldAcrossCalls: { $0.session.explicitTransaction })
    }

    deinit {
        // No call can be under way: they hold a reference. The next context on this tag numbers its
        // slots after the ones used here, so these handles stay stale for good.
        graph.withLockIgnoringTransactions { HandleSpace.release($0.space, slotsUsed: $0.slotsUsed) }
    }

    /// How long a call waits for another thread's transaction by default (as Python's sqlite3 module).
    public static let defaultBusyTimeout = 5000

    /// Runs `body` on the graph under the context's lock, after any other thread's transaction has
    /// ended; `.busy` if it outlasts the busy timeout, `.misuse` once the context is closed. With a
    /// store other processes write, what they committed is applied first (`refresh`). A graph that
    /// reads its store's rows as they are touched reads all of them first, unless the call is one
    /// of the few that read just what they touch themselves (`touching`).
    func withGraph<T>(waitingForOthers: Bool = false, touching: Bool = false,
                      _ body: (inout ObjectStore) throws(MappingError) -> T) throws(MappingError) -> T {
        var committed: [ChangeSet] = []
        var notices: [String] = []
        // Observers and the warning handler run once the lock is released: they may call the
        // context themselves.
        defer {
            if !notices.isEmpty { warn(notices) }
            if !committed.isEmpty { notify(committed) }
        }
        return try graph.withLock(refused: MappingError.init(refusal:)) { (store) throws(MappingError) -> T in
            defer {
                // Kept by the store (a bounded number) until a handler is there to take them.
                if let persistent = store.session.persistent, warningHandler.withLock({ $0 != nil }) {
                    notices = persistent.takeNotices()
                }
                if !store.session.committedChanges.isEmpty {
                    committed = store.session.committedChanges
                    store.session.committedChanges = []
                }
                // Between calls, outside transactions: everything held is committed.
                store.trimCache(model: spec.model)
                if let report = invariantReport { checkInvariants(store, report) }
            }
            if store.session.collectsChanges {
                let observing = observers.takeStaleCollecting()
                if observing.stale { store.session.collectsChanges = !observing.isEmpty }
            }
            // Only a context with observers can be inside one (a lookup per call otherwise).
            store.session.changeRefusal = store.session.collectsChanges ? changeRefusal() : nil
            defer { store.session.changeRefusal = nil }
            // Change sets name the owners whose lists change: a context that collects them holds
            // no list unread (`ObjectStore+Lists`), also when it applies other processes' commits.
            if store.session.collectsChanges { try store.readUnreadLists(model: spec.model) }
            try applyOthersChanges(&store, waiting: waitingForOthers)
            if !touching { try store.loadAll(model: spec.model) }
            return try body(&store)
        }
    }

    /// Applies what other processes committed to the context's database, as one commit observers
    /// are told of. Not inside a transaction: its commit would write their changes back as its own.
    private func applyOthersChanges(_ store: inout ObjectStore, waiting: Bool) throws(MappingError) {
        guard let persistent = store.session.persistent, !store.session.explicitTransaction,
              let refresh = try persistent.othersChanges(wait: waiting, newRows: store.session.collectsChanges),
              !refresh.isEmpty else { return }
        let objects = try store.apply(refresh, model: spec.model)
        persistent.applied(refresh, objects: objects)
    }

    /// Brings the graph up to what other processes have committed to its database by now (every
    /// call does this with what the database has already announced). Nothing for a context without
    /// a store, or with one only this context writes; inside a transaction, nothing until it ends.
    public func refresh() throws(MappingError) {
        try withGraph(waitingForOthers: true, touching: true) { (_: inout ObjectStore) throws(MappingError) in }
    }

    private func checkInvariants(_ store: ObjectStore, _ report: @Sendable ([String]) -> Void) {
        // A chunked import is checked once it ends, not after each chunk: a check walks the whole
        // graph, and per chunk that is quadratic in the payload.
        guard !(store.session.explicitTransaction && !store.session.transactionIsCallers) else { return }
        let broken = store.invariantViolations(model: spec.model)
        if !broken.isEmpty { report(broken) }
    }

    /// How long calls wait for another thread's transaction before failing with `.busy`, in
    /// milliseconds: 0 not at all, a negative number as long as it takes.
    public func setBusyTimeout(milliseconds: Int) { graph.setBusyTimeout(milliseconds: milliseconds) }

    /// Refuses every later call (`.misuse`) and wakes the calls waiting for a transaction, so that
    /// they fail at once: the context is being freed.
    public func close() { graph.close() }

    public var model: Model { spec.model }

    /// The parser that imports use unless their options name one; jansson until set.
    public var parser: JSONBackend {
        get { parserChoice.withLock { $0 } }
        set { parserChoice.withLock { $0 = newValue } }
    }

    /// The largest payload an import accepts, in bytes (0: no limit), as parsing costs it (see
    /// `checkInput`). Parsing needs memory in proportion to the input, so a caller that takes
    /// payloads from elsewhere bounds them here.
    public var maxInputSize: Int {
        get { inputLimit.withLock { $0 } }
        set { inputLimit.withLock { $0 = max(newValue, 0) } }
    }

    /// What each `[` and `{` of a payload counts for against `maxInputSize`, besides its byte: an
    /// array or object costs a parser tens of bytes (jansson 160-260, simdjson about 65), so text of
    /// small nested arrays needs 20-90 times its length to parse (docs/behaviour.md has the figures).
    public static let containerCharge = 16

    /// Throws `.range` for a payload over `maxInputSize`, before anything is parsed: longer than it,
    /// or costing more once each array and object is charged `containerCharge` bytes (every `[`
    /// and `{` byte is counted, in strings too: a scan, not a parse). Then the memory parsing
    /// needs stays within about 14 times the maximum whatever the text's shape.
    public func checkInput(_ bytes: UnsafeRawBufferPointer) throws(MappingError) {
        let limit = maxInputSize
        guard limit > 0 else { return }
        guard bytes.count <= limit else {
            throw MappingError(.range, "the input is \(bytes.count) bytes, more than this context's maximum of \(limit)")
        }
        var containers = 0
        for byte in bytes where byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { containers += 1 }
        // containers <= bytes.count <= limit, so neither product nor sum can overflow.
        let charged = bytes.count + containers * Self.containerCharge
        guard charged <= limit else {
            throw MappingError(.range, "the input is \(bytes.count) bytes holding \(containers) arrays and objects, which parsing costs "
                               + "as \(charged) bytes (\(Self.containerCharge) more for each): more than this context's maximum of \(limit)")
        }
    }

    /// Throws `.name` unless the spec has a mapping called `name` (for callers that check first).
    public func checkMapping(_ name: String) throws(MappingError) { _ = try mappingReference(name) }

    private func mappingReference(_ name: String) throws(MappingError) -> MappingRef {
        guard let reference = spec.reference(named: name) else {
            throw MappingError(.name, "unknown mapping \"\(name)\"" + NameHint.hint(for: name, among: spec.mappingNames, kind: "mappings"))
        }
        return reference
    }

    // MARK: Host transformers

    /// Registers (or replaces) a transformer the spec can name in an attribute's `"transformer"`.
    /// Built-in names (`iso8601`, `epoch`, `epochMillis`, `url`, `date:…`) cannot be taken.
    public func register(transformer name: String, _ transformer: HostTransformer) throws(MappingError) {
        guard !name.isEmpty, !name.contains(":"), !Transformer.builtInNames.contains(name) else {
            throw MappingError(.misuse, "\"\(name)\" cannot name a host transformer (empty, built in, or containing \":\")")
        }
        transformers.withLock { $0[name] = transformer }
    }

    private var hostTransformers: [String: HostTransformer] { transformers.withLock { $0 } }

    // MARK: Import

    /// Maps a parsed payload with the named mapping, all or nothing: if anything fails, the graph
    /// is exactly as it was before the call. Returns the top-level objects in payload order.
    public func importDocument<Reader: JSONReader>(mapping name: String, root: Reader.Node,
                                                   reader: Reader) throws(MappingError) -> [ObjectID] {
        try importDocument(mappings: [name], root: root, reader: reader, options: ImportOptions())
    }

    /// Maps a parsed payload with several mappings in turn, each at its own `rootPath` (RestKit's
    /// several root key paths in one response), as one all-or-nothing import.
    public func importDocument<Reader: JSONReader>(mappings names: [String], root: Reader.Node, reader: Reader,
                                                   options: ImportOptions) throws(MappingError) -> [ObjectID] {
        try importing(names, options) { (store, references, spec, hosts, options) throws(MappingError) -> [ObjectID] in
            try store.importDocument(references, root: root, reader: reader, spec: spec, hosts: hosts, options: options)
        }
    }

    /// Maps a parsed payload with several mappings in turn, as one all-or-nothing import (the
    /// payload specializes the importer for its reader, `ParsedPayload.importDocument`).
    func importPayload(_ payload: ParsedPayload, mappings names: [String], options: ImportOptions) throws(MappingError) -> [ObjectID] {
        try importing(names, options) { (store, references, spec, hosts, options) throws(MappingError) -> [ObjectID] in
            try payload.importDocument(references, into: &store, spec: spec, hosts: hosts, options: options)
        }
    }

    /// Runs `body` on the graph, under the context's lock, with the mappings `names` resolved. On a
    /// graph that reads its store's rows as they are touched, the import reads only the rows it
    /// touches (`ObjectStore.touching`); an import with callbacks probes first, without them, then
    /// runs once with them, so that they see one run.
    private func importing(_ names: [String], _ options: ImportOptions,
                           _ body: (inout ObjectStore, [MappingRef], CompiledSpec, [String: HostTransformer], ImportOptions) throws(MappingError) -> [ObjectID])
                           throws(MappingError) -> [ObjectID] {
        guard !names.isEmpty else { throw MappingError(.misuse, "no mapping named for the import") }
        var references: [MappingRef] = []
        for name in names { references.append(try mappingReference(name)) }
        let spec = self.spec
        let hosts = hostTransformers
        var probe = options
        probe.onEvent = nil
        probe.onProgress = nil
        probe.audit = options.audit.map { ImportAudit(warnsAboutOptional: $0.warnsAboutOptional) }
        return try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> [ObjectID] in
            let callbacks = options.onEvent != nil || options.onProgress != nil || options.audit != nil
            return try store.touching(model: spec.model, probing: callbacks) { (store, probing) throws(MappingError) -> [ObjectID] in
                try body(&store, references, spec, hosts, probing ? probe : options)
            }
        }
    }

    // MARK: Reading

    /// The number of keys in the identity map of `entity` (for tests: it must equal the live
    /// objects that carry an identity, whatever was rolled back).
    func identityEntryCount(of entity: String) -> Int {
        guard let map = spec.model.entity(named: entity)?.identityMap else { return 0 }
        return (try? withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) in store.identityEntryCount(map: map) }) ?? 0
    }

    private func read<T>(_ body: (GraphReader) throws(MappingError) -> T) throws(MappingError) -> T {
        let model = spec.model
        return try withGraph { (store: inout ObjectStore) throws(MappingError) -> T in
            try body(GraphReader(model: model, store: store))
        }
    }

    /// `read`, on a graph that has read the rows of `objects` (and only those, when it reads its
    /// store's rows as they are touched).
    private func read<T>(touching objects: [ObjectID], _ body: (GraphReader) throws(MappingError) -> T) throws(MappingError) -> T {
        let model = spec.model
        return try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> T in
            try store.materialize(objects, model: model)
            return try body(GraphReader(model: model, store: store))
        }
    }

    public func entityName(of object: ObjectID) throws(MappingError) -> String {
        try read(touching: [object]) { (reader) throws(MappingError) in try reader.entity(of: object).name }
    }

    /// The attribute's value (`nil` for null or never set) and its declaration.
    public func value(of object: ObjectID, attribute: String) throws(MappingError) -> (AttributeValue?, Attribute) {
        try read(touching: [object]) { (reader) throws(MappingError) in try reader.value(of: object, attribute: attribute) }
    }

    /// Runs `body`, under the context's lock, with a string attribute as the graph stores it: the
    /// arena and the string's place in it, whose bytes stay where they are until the context is
    /// freed (so a C caller can keep them while the value is unchanged). The place is `nil` when the
    /// value is null or is not kept in the arena (a string of 4 GiB or more): the caller then reads
    /// it with `value(of:attribute:)`. The arena may be asked only inside `body`: another thread's
    /// import may be adding chunks to it as soon as the lock is released.
    public func withStoredString<T>(of object: ObjectID, attribute: String,
                                    _ body: (StringArena.Ref?, Attribute, StringArena) -> T) throws(MappingError) -> T {
        try read(touching: [object]) { (reader) throws(MappingError) in
            let (ref, declared) = try reader.stringRef(of: object, attribute: attribute)
            return body(ref, declared, reader.store.arena)
        }
    }

    /// One attribute of many objects under a single lock: the bulk read behind `mapping_list_values`.
    public func values(of objects: [ObjectID], attribute: String) throws(MappingError) -> [AttributeValue?] {
        try readColumn(objects, attribute: attribute) { (reader, faults) throws(MappingError) -> [AttributeValue?] in
            try reader.column(objects, attribute: attribute, faults: faults)
        }
    }

    /// The same column as a JSON array (null for null, dates as seconds since 1970), written as it
    /// is read.
    public func valuesText(of objects: [ObjectID], attribute: String) throws(MappingError) -> [UInt8] {
        try readColumn(objects, attribute: attribute) { (reader, faults) throws(MappingError) -> [UInt8] in
            try reader.columnText(objects, attribute: attribute, faults: faults)
        }
    }

    /// `body` on a graph that reads its store's rows as they are touched with the attribute of the
    /// faults among `objects` read as one column (their rows are not read).
    private func readColumn<T>(_ objects: [ObjectID], attribute: String,
                               _ body: (GraphReader, FaultColumn) throws(MappingError) -> T) throws(MappingError) -> T {
        let model = spec.model
        return try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> T in
            let faults = try store.columnOfFaults(objects, attribute: attribute, model: model)
            return try body(GraphReader(model: model, store: store), faults)
        }
    }

    /// The target of a to-one relationship, or `nil`.
    public func relatedObject(of object: ObjectID, relationship: String) throws(MappingError) -> ObjectID? {
        try related(of: object, relationship: relationship) { (links, declared) throws(MappingError) -> ObjectID? in
            guard case .one(let target) = links else {
                throw MappingError(.type, "\(declared.name) is a to-many relationship; read it as a list",
                                   attribute: relationship)
            }
            return target
        }
    }

    /// The targets of a to-many relationship, in order.
    public func relatedObjects(of object: ObjectID, relationship: String) throws(MappingError) -> [ObjectID] {
        try related(of: object, relationship: relationship) { (links, declared) throws(MappingError) -> [ObjectID] in
            guard case .many(let list) = links else {
                throw MappingError(.type, "\(declared.name) is a to-one relationship; read it as one object",
                                   attribute: relationship)
            }
            return list.ids
        }
    }

    /// A relationship of an object as `body` reads it. On a graph that reads its store's rows as
    /// they are touched, the object's row and its targets' rows are read first (a to-many's in one
    /// request): a link whose row is gone (a one-way link to a deleted object) then reads as none,
    /// as it does in memory.
    private func related<T>(of object: ObjectID, relationship: String,
                            _ body: (Links, Relationship) throws(MappingError) -> T) throws(MappingError) -> T {
        let model = spec.model
        return try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> T in
            try store.materialize([object], model: model)
            try store.readList(of: object, named: relationship, model: model)
            if store.isPartial {
                // The reader (a copy of the graph) is gone before the graph reads the targets.
                let targets = try GraphReader(model: model, store: store).links(of: object, relationship: relationship).0.targets
                try store.materialize(targets, model: model)
            }
            let (links, declared) = try GraphReader(model: model, store: store).links(of: object, relationship: relationship)
            return try body(links, declared)
        }
    }

    /// Whether the relationship is to-many.
    public func isToMany(_ object: ObjectID, relationship: String) throws(MappingError) -> Bool {
        try read(touching: [object]) { (reader) throws(MappingError) in try reader.links(of: object, relationship: relationship).1.toMany }
    }

    /// Every object of the entity, sub-entities included.
    public func objects(of entity: String) throws(MappingError) -> [ObjectID] {
        try fetch(FetchRequest(entity: entity))
    }

    /// How many objects the entity has, sub-entities included.
    public func count(of entity: String) throws(MappingError) -> Int {
        try count(of: entity, where: nil)
    }

    /// The object of the entity with this identity, or `nil` (see `GraphReader.find`).
    public func object(of entity: String, identity: JSONValue) throws(MappingError) -> ObjectID? {
        let model = spec.model
        return try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> ObjectID? in
            // A reader holds a copy of the graph: it is gone before the graph changes, or the
            // change would copy every array of the graph (the whole cache, per call).
            let found: Entity
            let key: IdentityKey?
            do {
                let reader = GraphReader(model: model, store: store)
                found = try reader.entity(named: entity)
                key = store.isPartial ? try reader.identityKey(of: found, identity: identity) : nil
            }
            // Read from the store first when the graph has not read that identity's row yet.
            if let key { _ = try store.find(found, key: key, model: model) }
            return try GraphReader(model: model, store: store).find(found, identity: identity)
        }
    }

    /// The objects a fetch request selects (see `FetchRequest`). Predicate errors name the column.
    /// On a graph that reads its store's rows as they are touched, the database selects them
    /// (`ObjectStore+RowFetch`).
    public func fetch(_ request: FetchRequest) throws(MappingError) -> [ObjectID] {
        let model = spec.model
        return try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> [ObjectID] in
            if let found = try store.fetchRows(request, model: model) { return found }
            store.prepareIndexes()
            return try GraphReader(model: model, store: store).fetch(request)
        }
    }

    /// How many objects match a predicate (all of the entity's for nil), counted by the database
    /// when it can test the predicate, on a graph that reads its store's rows as they are touched.
    public func count(of entity: String, where predicate: String?, arguments: [JSONValue] = []) throws(MappingError) -> Int {
        let model = spec.model
        let request = FetchRequest(entity: entity, predicate: predicate, arguments: arguments)
        let counted = try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> Int? in
            if let counted = try store.countRows(request, model: model) { return counted }
            guard !store.isPartial, predicate == nil else { return nil }
            let reader = GraphReader(model: model, store: store)
            return reader.count(of: try reader.entity(named: entity))
        }
        if let counted { return counted }
        return try fetch(request).count
    }

    public func isLive(_ object: ObjectID) throws(MappingError) -> Bool {
        try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) in store.contains(object) }
    }

    // MARK: Writing out

    /// JSON text for one object (`asList == false`) or a list, through the named mapping.
    public func serialize(mapping name: String, objects: [ObjectID], asList: Bool,
                          options: SerializeOptions = []) throws(MappingError) -> String {
        let document = try serialized(mapping: name, objects: objects, asList: asList, options: options)
        if options.contains(.formEncoded) {
            guard let form = FormEncoder.encode(document.tree) else {
                throw MappingError(.misuse, "form encoding needs an object at the top: serialize one object, or give the mapping a rootPath")
            }
            return form
        }
        return JSONWriter.text(document, pretty: options.contains(.pretty))
    }

    /// What `serialize` writes, as a `JSONValue`.
    func serializedDocument(mapping name: String, objects: [ObjectID], asList: Bool,
                            options: SerializeOptions) throws(MappingError) -> JSONValue {
        try serialized(mapping: name, objects: objects, asList: asList, options: options).tree
    }

    private func serialized(mapping name: String, objects: [ObjectID], asList: Bool,
                            options: SerializeOptions) throws(MappingError) -> SerializedJSON {
        let plan = try mappingReference(name)
        let spec = self.spec
        let hosts = hostTransformers
        return try withGraph(touching: true) { (store: inout ObjectStore) throws(MappingError) -> SerializedJSON in
            try store.touching(model: spec.model, probing: false) { (store, _) throws(MappingError) -> SerializedJSON in
                var serializer = Serializer(spec: spec, store: store, options: options)
                serializer.hosts = hosts
                return try serializer.document(objects, mapping: plan, asList: asList)
            }
        }
    }
}

extension MappingError {
    /// The error of a call that could not take the context's lock.
    init(refusal: TransactionLock<ObjectStore>.Refusal) {
        switch refusal {
        case .busy(let milliseconds):
            self.init(.busy, "another thread's transaction on this context stayed open past the busy timeout (\(milliseconds) ms); nothing was changed")
        case .closed:
            self.init(.misuse, "the context was freed")
        }
    }
}
