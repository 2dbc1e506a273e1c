/// A copy of one object of the graph: its entity, attribute values (nil = null or never set) and the
/// targets of each relationship, indexed as the entity's `attributes` and `relationships` are. The
/// graph itself keeps objects in columns (`EntityTable`); a record is what a transaction keeps of an
/// object before changing it, and what change sets and database commits are made from.
struct ObjectRecord {
    var entity: Int
    /// Creation order across the store, so results found through an index keep creation order.
    var sequence: Int
    var values: [AttributeValue?]
    var links: [Links]
}

/// The value of one relationship of one object.
package enum Links {
    case one(ObjectID?)
    case many(LinkList)
    /// A to-many of a store-backed graph whose targets have not been read (`ObjectStore+Lists`):
    /// only a record (a before-image) holds this; readers are given the list once it is read.
    case unread

    /// The targets, without making an array for a to-one.
    var targetSequence: ArraySlice<ObjectID> {
        switch self {
        case .one(let id?): [id][...]
        case .one(nil), .unread: []
        case .many(let list): list.ids[...]
        }
    }

    package var targets: [ObjectID] {
        switch self {
        case .one(let id): id.map { [$0] } ?? []
        case .many(let list): list.ids
        case .unread: []
        }
    }
}
