import MappingArena

/// A commit's rows read their values and links from the graph as the commit found it, in place:
/// no array of values or of targets is made per row (that, and freeing them, was a quarter of the
/// time a cold import into a new store spent outside the database), and a store binds a row's
/// text where the graph keeps it.
extension StoreCommit {
    /// The graph as the commit found it: its tables, strings and which handles are live, shared
    /// with the context's graph, not copied. The context changes nothing while a store writes a
    /// commit, and drops the commit before it changes the graph again; a store that keeps a commit
    /// (a test's) makes the graph copy what it changes next.
    final class Graph {
        let tables: [EntityTable]
        let arena: StringArena
        let space: HandleSpace
        let places: [ObjectStore.Place]
        let generations: [UInt16]
        /// Every table's columns, one after the other (a table's first at `starts[table]`): an
        /// array of this graph's own, so a column is read where it lies (`stringRefInPlace`). Read
        /// through `tables`, a table and its column were copied out of their arrays for each value
        /// (ten retains and releases: half the instructions of binding a row's text).
        @exclusivity(unchecked) private var columns: [Column]
        private let starts: [Int]

        init(tables: [EntityTable], arena: StringArena, space: HandleSpace, places: [ObjectStore.Place], generations: [UInt16]) {
            var starts: [Int] = []
            var columns: [Column] = []
            for table in tables {
                starts.append(columns.count)
                columns.append(contentsOf: table.columns)
            }
            self.starts = starts
            self.columns = columns
            self.tables = tables
            self.arena = arena
            self.space = space
            self.places = places
            self.generations = generations
        }

        func contains(_ id: ObjectID) -> Bool { ObjectStore.liveSlot(of: id, space, places, generations) != nil }

        /// One attribute value of a table's row; nil outside the table.
        func value(_ table: Int, row: Int, attribute: Int) -> AttributeValue? {
            tables.indices.contains(table) ? tables[table].value(attribute, row: row, arena: arena) : nil
        }

        /// A string value's bytes in the arena.
        func text(_ table: Int, row: Int, attribute: Int) -> UnsafeRawBufferPointer? {
            guard starts.indices.contains(table), attribute >= 0, attribute < tables[table].columns.count else { return nil }
            return columns[starts[table] + attribute].stringRefInPlace(at: row).map(arena.bytesInPlace)
        }

        /// A relationship's live targets (a list not read from the store has none).
        func targets(_ table: Int, row: Int, relationship: Int) -> [ObjectID] {
            guard tables.indices.contains(table) else { return [] }
            switch tables[table].links(relationship, row: row) {
            case .one(let target?)? where contains(target):
                return [target]
            case .many(let list)?:
                var live: [ObjectID] = []
                live.reserveCapacity(list.count)
                for target in list.ids where contains(target) { live.append(target) }
                return live
            default:
                return []
            }
        }

        /// A to-one's live target, or a to-many's first.
        func target(_ table: Int, row: Int, relationship: Int) -> ObjectID? {
            guard tables.indices.contains(table) else { return nil }
            switch tables[table].links(relationship, row: row) {
            case .one(let target?)? where contains(target):
                return target
            case .many(let list)?:
                for target in list.ids where contains(target) { return target }
                return nil
            default:
                return nil
            }
        }
    }

    /// A row's attribute values, by attribute index of its entity.
    public struct Values: RowParts {
        let graph: Graph
        let table: Int
        let row: Int
        public let count: Int

        public subscript(position: Int) -> AttributeValue? {
            graph.value(table, row: row, attribute: position)
        }

        /// The bytes of a string value where the graph keeps them, without a `String` made: nil
        /// for a null or a value of another type. They stay as they are while this commit is alive
        /// (the graph's strings never move or change), so a store may bind them without a copy.
        public func textInPlace(_ position: Int) -> UnsafeRawBufferPointer? {
            graph.text(table, row: row, attribute: position)
        }
    }

    /// A row's relationships, by relationship index of its entity: each one's live targets.
    public struct RowLinks: RowParts {
        let graph: Graph
        let table: Int
        let row: Int
        public let count: Int

        /// A relationship's live targets in order (an array made: `target` reads a to-one without).
        public subscript(position: Int) -> [ObjectID] {
            graph.targets(table, row: row, relationship: position)
        }

        /// A to-one's live target (a to-many's first), nil when there is none.
        public func target(_ position: Int) -> ObjectID? {
            graph.target(table, row: row, relationship: position)
        }
    }
}

/// A row's values or links, read where the graph keeps them: positions 0 to `count`.
public protocol RowParts: RandomAccessCollection where Index == Int {
    var count: Int { get }
}

extension RowParts {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
}
