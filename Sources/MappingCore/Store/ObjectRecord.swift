/// A copy of one object of the graph: its entity, attribute values (nil = null or never set) and the
/// targets of each relationship, indexed as the entity's `attributes` and `relationships` are. The
/// graph itself keeps objects in columns (`EntityTable`); a record is what a transaction keeps of an
/// object before changing it, and what change sets and database commits are made from.
struct ObjectRecord {
    var entity: Int
    /// Creation order across the store, so results found through an index keep creation order.
    var sequence: Int = 0
    var values: [AttributeValue?]
    var links: [Links]

    init(entity: Int, sequence: Int, values: [AttributeValue?], links: [Links]) {
        self.entity = entity
        self.sequence = sequence
        self.values = values
        self.links = links
    }

    init(entity: Entity) {
        self.entity = entity.index
        // Appending in a loop rather than Array(repeating:count:) and map: those ran unspecialized
        // here, copying each optional through generic value witnesses (~1,200 instructions a record).
        var values: [AttributeValue?] = []
        values.reserveCapacity(entity.attributes.count)
        for _ in entity.attributes { values.append(nil) }
        var links: [Links] = []
        links.reserveCapacity(entity.relationships.count)
        for relationship in entity.relationships { links.append(relationship.toMany ? .many(LinkList()) : .one(nil)) }
        self.values = values
        self.links = links
    }
}

/// The value of one relationship of one object.
enum Links {
    case one(ObjectID?)
    case many(LinkList)

    var targets: [ObjectID] {
        switch self {
        case .one(let id): id.map { [$0] } ?? []
        case .many(let list): list.ids
        }
    }
}
