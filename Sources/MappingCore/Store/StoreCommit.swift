/// What one commit writes: the objects it inserted and updated as they are now, and the objects
/// it deleted. Objects made and deleted within the commit appear nowhere.
public struct StoreCommit {
    public struct Row {
        public let object: ObjectID
        public let entity: Entity
        /// Per attribute of the entity, its value, read from the graph when asked.
        public let values: Values
        /// Per relationship of the entity, its live targets in order, read from the graph when asked.
        public let links: RowLinks
        /// Per relationship: for a to-one whose inverse is a to-many, this object's position in its
        /// target's to-many (so a store can keep that order on this row); nil otherwise, and when
        /// the target's list is not read (the database's position stands, or `listMoves` sets it).
        public let positions: [Int?]
        /// For an updated row, the names of the attributes and relationships the commit changed, in
        /// declaration order; empty for an inserted or moved row.
        public let changed: [String]
        /// For an updated row, per relationship, the targets a to-many in `changed` held before the
        /// commit (empty for the others), so that a store shared with other processes can write just
        /// what the commit added, removed and moved, keeping what others did meanwhile; nil for an
        /// inserted or moved row.
        public let before: [[ObjectID]]?
    }

    public let model: Model
    public internal(set) var inserted: [Row] = []
    public internal(set) var updated: [Row] = []
    /// Rows whose only change is their position in an owner's to-many (another member was added,
    /// removed or moved): only their position columns need writing.
    public internal(set) var moved: [Row] = []
    public internal(set) var deleted: [(object: ObjectID, entity: Entity)] = []
    /// Rows the graph has not read (faults) whose only change is their place in an owner's
    /// to-many: only that position column is written, and the row is never read.
    public internal(set) var repositioned: [Repositioned] = []

    /// A row's new place in an owner's to-many: its to-one `relationship` of `entity` (the to-many's
    /// destination, whose table holds the row) keeps it.
    public struct Repositioned: Sendable {
        public let object: ObjectID
        public let entity: Entity
        public let relationship: Int
        public let position: Int

        public init(object: ObjectID, entity: Entity, relationship: Int, position: Int) {
            self.object = object
            self.entity = entity
            self.relationship = relationship
            self.position = position
        }
    }

    /// Rows whose to-one moved them out of, or into, an owner's to-many the graph has not read
    /// (`ObjectStore+Lists`): the store clears the place the row leaves in `left`'s list (before
    /// writing any row) and puts the row last in `joined`'s (after). Their rows' `positions` for
    /// that relationship are nil, which keeps what the database holds.
    public internal(set) var listMoves: [ListMove] = []

    /// Rows the graph has not read that left an owner's one-to-many: their to-one `relationship`
    /// (of `entity`, the row's table) is cleared, with its position, where it still names `owner`.
    /// Written before any row is deleted.
    public internal(set) var unlinked: [Unlinked] = []

    public struct Unlinked: Sendable {
        public let object: ObjectID
        public let entity: Entity
        public let relationship: Int
        public let owner: ObjectID
    }

    /// A row that left or joined an unread list: its to-one `relationship` of `entity`.
    public struct ListMove: Sendable {
        public let object: ObjectID
        public let entity: Entity
        public let relationship: Int
        public let left: ObjectID?
        public let joined: ObjectID?
    }

    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && moved.isEmpty && deleted.isEmpty && repositioned.isEmpty && listMoves.isEmpty
            && unlinked.isEmpty
    }
}

/// An object read back from a database: its key in the database, its entity, its values, per
/// relationship the keys of its targets in order, and the row's version (for a store shared with
/// other processes; 1 otherwise).
public struct StoredObject: Sendable {
    public let key: Int64
    public let entity: Int
    public let values: [AttributeValue?]
    public var links: [[Int64]]
    public let version: Int64

    public init(key: Int64, entity: Int, values: [AttributeValue?], links: [[Int64]], version: Int64 = 1) {
        self.key = key
        self.entity = entity
        self.values = values
        self.links = links
        self.version = version
    }
}
