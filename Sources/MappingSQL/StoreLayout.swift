import MappingCore

/// How the model is laid out in SQL, so that `sqlite3 app.db .schema` reads like the spec:
/// - one table per entity hierarchy, named for its root entity (sub-entities share their root's
///   table, as Core Data's SQLite store does), with `_id INTEGER PRIMARY KEY` and `_entity TEXT`
///   naming each row's entity;
/// - a column per attribute, named as the attribute, in the natural SQL type (dates as INTEGER
///   microseconds since 1970 UTC, decimals as exact TEXT, JSON as TEXT, booleans as 0/1);
/// - a column per to-one relationship holding the target's `_id`; when its inverse is a to-many,
///   a `<column>_position` column keeps this row's place in that to-many, which then needs no
///   table of its own (one-to-many relationships are stored once);
/// - a join table per other to-many relationship (many-to-many, or without an inverse),
///   `<Entity>_<relationship>(owner, target, position)`, positions keeping the order;
/// - a UNIQUE index on each identification, an index on each `indexed` attribute and on each to-one
///   column that keeps a to-many (its `_position` sibling's).
/// A name two entities of one hierarchy declare differently is prefixed with the declaring entity.
///
/// The two databases get the same tables, columns and indexes; only the column types differ
/// (`Dialect`), and PostgreSQL's rows carry a `_version` (optimistic concurrency between processes)
/// and its references are checked when the transaction commits.
package struct StoreLayout {
    package enum Dialect: Sendable {
        case sqlite
        case postgres
    }

    package struct Table {
        package let name: String
        /// Column names in table order, after `_id` and `_entity`.
        package var columns: [String] = []
        package var types: [String] = []
        package var references: [String?] = []
    }

    package struct JoinTable {
        package let name: String
        package let root: Int
    }

    package let model: Model
    package let dialect: Dialect
    /// The parser of the JSON text rows hold (`json` columns).
    package let json: JSONTextReader
    /// The names tables and columns are made from.
    package let naming: Naming
    /// Per entity, the index of its hierarchy's root (the table it lives in).
    package let root: [Int]
    /// Per root entity, its table.
    package private(set) var tables: [Int: Table] = [:]
    /// Per entity, per attribute, the column.
    package private(set) var attributeColumns: [[String]] = []
    /// Per entity, per relationship: the to-one column, or nil for a to-many.
    package private(set) var linkColumns: [[String?]] = []
    /// Per entity, per relationship: the join table of a to-many stored in one, else nil.
    package private(set) var joinTables: [[String?]] = []
    /// Per entity, per relationship: the position column of a to-one whose inverse is a to-many.
    package private(set) var positionColumns: [[String?]] = []
    /// Per entity, per relationship: the statements of a to-one whose inverse is a to-many
    /// (`StoreLayout+Lists`).
    package private(set) var listStatements: [[ListStatements?]] = []
    /// Per root entity, how its table's rows are read (`StoreLoader`).
    private(set) var tableReads: [Int: TableRead] = [:]
    /// Each entity's index by name, as rows name them in `_entity`.
    private(set) var entityByName: [String: Int] = [:]

    package init(model: Model, naming: Naming? = nil, dialect: Dialect = .sqlite, json: @escaping JSONTextReader) {
        self.model = model
        self.dialect = dialect
        self.json = json
        let naming = naming ?? Naming(model)
        self.naming = naming
        root = model.entities.map { entity in
            var current = entity.index
            var steps = 0
            while let parent = model.entities[current].parent, steps < model.entities.count {
                current = parent
                steps += 1
            }
            return current
        }
        var declared: [String: String] = [:]  // "table.column" -> what declares it
        for entity in model.entities {
            let table = root[entity.index]
            if tables[table] == nil { tables[table] = Table(name: naming.entities[table]) }
            var columns: [String] = []
            for (index, attribute) in entity.attributes.enumerated() {
                let owner = declaringEntity(of: entity, attribute: index)
                columns.append(column(naming.attributes[entity.index][index], owner: owner, type: sqlType(attribute.type), reference: nil,
                                      in: table, declared: &declared, key: "a\(owner).\(index)"))
            }
            attributeColumns.append(columns)
            var links: [String?] = []
            var joins: [String?] = []
            var positions: [String?] = []
            for (index, relationship) in entity.relationships.enumerated() {
                let owner = declaringEntity(of: entity, relationship: index)
                let name = naming.relationships[entity.index][index]
                if relationship.toMany {
                    links.append(nil)
                    positions.append(nil)
                    joins.append(model.inverse(of: relationship)?.toMany == false ? nil : "\(naming.entities[owner])_\(name)")
                } else {
                    let target = naming.entities[root[relationship.destination]]
                    let link = column(name, owner: owner, type: keyType, reference: target,
                                      in: table, declared: &declared, key: "r\(owner).\(index)")
                    links.append(link)
                    joins.append(nil)
                    positions.append(model.inverse(of: relationship)?.toMany == true
                        ? column(link + "_position", owner: owner, type: keyType, reference: nil, in: table,
                                 declared: &declared, key: "p\(owner).\(index)")
                        : nil)
                }
            }
            linkColumns.append(links)
            joinTables.append(joins)
            positionColumns.append(positions)
        }
        listStatements = Self.listStatements(tables: tables, root: root, links: linkColumns, positions: positionColumns, dialect: dialect)
        for entity in model.entities { entityByName[entity.name] = entity.index }
        tableReads = Self.tableReads(self)
    }

    /// The column for a declaration: its own name unless another declaration in the table took it.
    private mutating func column(_ name: String, owner: Int, type: String, reference: String?, in table: Int,
                                 declared: inout [String: String], key: String) -> String {
        var candidate = name
        if let holder = declared["\(table).\(candidate)"], holder != key {
            candidate = "\(naming.entities[owner])_\(name)"
        }
        if declared["\(table).\(candidate)"] == nil {
            declared["\(table).\(candidate)"] = key
            tables[table]?.columns.append(candidate)
            tables[table]?.types.append(type)
            tables[table]?.references.append(reference)
        }
        return candidate
    }

    /// The farthest ancestor that has the attribute (inherited attributes come first, by index).
    private func declaringEntity(of entity: Entity, attribute index: Int) -> Int {
        var owner = entity.index
        while let parent = model.entities[owner].parent, model.entities[parent].attributes.count > index { owner = parent }
        return owner
    }

    private func declaringEntity(of entity: Entity, relationship index: Int) -> Int {
        var owner = entity.index
        while let parent = model.entities[owner].parent, model.entities[parent].relationships.count > index { owner = parent }
        return owner
    }

    package func sqlType(_ type: AttributeType) -> String {
        switch (dialect, type) {
        case (.sqlite, .integer), (.sqlite, .boolean), (.sqlite, .date): "INTEGER"
        // No declared type, so no affinity: a REAL column writes whole-number doubles as integers
        // on disk and reads -0.0 back as 0.0. Doubles still compare and sort as numbers.
        case (.sqlite, .double): ""
        case (.postgres, .integer), (.postgres, .date): "BIGINT"
        case (.postgres, .boolean): "BOOLEAN"
        case (.postgres, .double): "DOUBLE PRECISION"
        case (_, .string), (_, .decimal), (_, .json): "TEXT"
        }
    }

    /// The type of `_id` and of the columns that hold one (links, positions).
    package var keyType: String { dialect == .sqlite ? "INTEGER" : "BIGINT" }

    /// How a reference is checked: at once in SQLite (whose writes come in an order that keeps
    /// them valid), at commit in PostgreSQL, where a row may name one that a concurrent import
    /// inserted first under the same identity and is pointed at it before the commit ends.
    private var referenceTiming: String { dialect == .sqlite ? "" : " DEFERRABLE INITIALLY DEFERRED" }

    /// The statements that create the schema.
    package var creation: [String] {
        var statements: [String] = []
        for rootIndex in tables.keys.sorted() {
            statements += tableCreation(root: rootIndex) + indexCreation(root: rootIndex)
        }
        for join in joins.keys.sorted() { statements.append(joinCreation(join)) }
        // PostgreSQL checks that a referenced table exists, so the links are added once all are.
        for rootIndex in tables.keys.sorted() {
            guard let table = tables[rootIndex] else { continue }
            statements += table.columns.indices.compactMap { foreignKey(table, $0) }
        }
        return statements
    }

    /// PostgreSQL's reference for a link column, added after the tables; nil for other columns, and
    /// in SQLite (whose column definition carries it).
    package func foreignKey(_ table: Table, _ index: Int) -> String? {
        guard dialect == .postgres, table.references.indices.contains(index), let reference = table.references[index] else { return nil }
        return "ALTER TABLE \(quote(table.name)) ADD FOREIGN KEY (\(quote(table.columns[index]))) "
            + "REFERENCES \(quote(reference))(\"_id\")\(referenceTiming)"
    }

    /// Every join table, with the root entities of its owners and targets.
    package var joins: [String: (owner: String, target: String)] {
        var found: [String: (owner: String, target: String)] = [:]
        for entity in model.entities {
            for (index, join) in joinTables[entity.index].enumerated() {
                guard let join, found[join] == nil else { continue }
                found[join] = (naming.entities[root[entity.index]], naming.entities[root[entity.relationships[index].destination]])
            }
        }
        return found
    }

    /// A column's definition: name, type, reference.
    package func columnDefinition(_ table: Table, _ index: Int) -> String {
        // PostgreSQL's references are added after the tables (`creation`).
        let reference = dialect == .sqlite ? table.references[index].map { " REFERENCES \(quote($0))(\"_id\")" } ?? "" : ""
        let type = table.types[index].isEmpty ? "" : " " + table.types[index]
        return "\(quote(table.columns[index]))\(type)\(reference)"
    }

    package func tableCreation(root rootIndex: Int) -> [String] {
        guard let table = tables[rootIndex] else { return [] }
        let version = dialect == .postgres ? ["\"_version\" BIGINT NOT NULL DEFAULT 1"] : []
        // PostgreSQL gives out ids from the table's own sequence (many processes insert at once),
        // a thousand at a time per session (ids need not be dense; fetching them one by one cost more
        // than inserting the rows).
        let id = dialect == .postgres ? "BIGINT GENERATED BY DEFAULT AS IDENTITY (CACHE 1000) PRIMARY KEY" : "INTEGER PRIMARY KEY"
        let definition = ["\"_id\" \(id)", "\"_entity\" TEXT NOT NULL"] + version
            + table.columns.indices.map { columnDefinition(table, $0) }
        return ["CREATE TABLE \(quote(table.name)) (\(definition.joined(separator: ", ")))"]
    }

    /// The identity and attribute indexes of a table (IF NOT EXISTS: a grown store gets the new ones).
    package func indexCreation(root rootIndex: Int) -> [String] { indexes(root: rootIndex).map(\.sql) }

    /// The identity, attribute and link indexes of a table, by name; `unique` for identities.
    package func indexes(root rootIndex: Int) -> [(name: String, sql: String, unique: Bool)] {
        guard let table = tables[rootIndex] else { return [] }
        var indexes: [(name: String, sql: String, unique: Bool)] = []
        var identityMaps: Set<Int> = []
        for entity in model.entities where root[entity.index] == rootIndex {
            if let map = entity.identityMap, !entity.identification.isEmpty, identityMaps.insert(map).inserted {
                let name = "\(naming.entities[entity.index])_identity"
                let columns = identityColumns(entity).map(quote).joined(separator: ", ")
                indexes.append((name, "CREATE UNIQUE INDEX IF NOT EXISTS \(quote(name)) ON \(quote(table.name)) (\(columns))", true))
            }
            var columns: [(name: String, also: String?)] = []
            for (index, attribute) in entity.attributes.enumerated() where attribute.indexed {
                columns.append((attributeColumns[entity.index][index], nil))
            }
            // A to-many kept on its targets' to-one column is read by that column (a graph reading
            // rows as they are touched asks for one owner's targets), and appended to by its
            // position (the last place of a list not read: `ObjectStore+Lists`). A file made
            // before has the index on the column alone, under the same name: it stays so.
            for (index, position) in positionColumns[entity.index].enumerated() {
                if let position, let link = linkColumns[entity.index][index] { columns.append((link, position)) }
            }
            for column in columns {
                let name = "\(table.name)_\(column.name)"
                guard !indexes.contains(where: { $0.name == name }) else { continue }
                let indexed = quote(column.name) + (column.also.map { ", " + quote($0) } ?? "")
                indexes.append((name, "CREATE INDEX IF NOT EXISTS \(quote(name)) ON \(quote(table.name)) (\(indexed))", false))
            }
        }
        return indexes
    }

    /// The columns of an entity's identification, in order (empty when it has none).
    package func identityColumns(_ entity: Entity) -> [String] {
        guard entity.identityMap != nil else { return [] }
        return entity.identification.map { attributeColumns[entity.index][$0] }
    }

    /// A join table. In PostgreSQL a target is listed once per owner and positions may tie: processes
    /// that add to one to-many at once each add their own targets, and none of them loses any.
    package func joinCreation(_ join: String) -> String {
        let (owner, target) = joins[join] ?? ("", "")
        return "CREATE TABLE \(quote(join)) (\"owner\" \(keyType) NOT NULL REFERENCES \(quote(owner))(\"_id\")\(referenceTiming), "
            + "\"target\" \(keyType) NOT NULL REFERENCES \(quote(target))(\"_id\")\(referenceTiming), \"position\" \(keyType) NOT NULL, "
            + "PRIMARY KEY (\"owner\", \(dialect == .sqlite ? "\"position\"" : "\"target\"")))"
    }
}

/// An SQL identifier, quoted (a double quote inside is doubled).
package func quote(_ name: String) -> String { quote(name, "\"") }

/// `name` between two `mark`s, each `mark` inside doubled: with "'", an SQL string literal.
package func quote(_ name: String, _ mark: Character) -> String {
    // By Unicode scalar: a mark followed by a combining character is one Character that is not
    // equal to the mark, and would go through undoubled.
    let scalar = mark.unicodeScalars.first ?? "\""
    var quoted = String.UnicodeScalarView()
    quoted.append(scalar)
    for each in name.unicodeScalars {
        if each == scalar { quoted.append(scalar) }
        quoted.append(each)
    }
    quoted.append(scalar)
    return String(quoted)
}
