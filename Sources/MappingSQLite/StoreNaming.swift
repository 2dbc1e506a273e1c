import MappingCore

/// The names a `StoreLayout` makes its tables and columns from: per entity, its own name and the
/// names of its attributes and relationships.
///
/// Renames (`renamedFrom` in the spec) work through it: the model a store was written with, laid
/// out under the names the current spec gives its elements, is the store as it will be once
/// renamed. That layout and the store's own are parallel, element by element, so comparing them
/// gives the SQL that renames (`StoreLayout.renames(to:)`).
struct Naming {
    var entities: [String]
    var attributes: [[String]]
    var relationships: [[String]]

    /// The model's own names.
    init(_ model: Model) {
        entities = model.entities.map(\.name)
        attributes = model.entities.map { $0.attributes.map(\.name) }
        relationships = model.entities.map { $0.relationships.map(\.name) }
    }

    /// `old`'s elements under the names `new` gives them. An element of `new` declaring
    /// `renamedFrom: "x"` renames `old`'s element `x`, when `old` has `x` and not the new name
    /// already (a store renamed before is left as it is).
    static func renaming(_ old: Model, to new: Model) -> Naming {
        var naming = Naming(old)
        for entity in old.entities {
            let match = new.entity(named: entity.name)
                ?? new.entities.first { $0.renamedFrom == entity.name && old.entity(named: $0.name) == nil }
            guard let match else { continue }
            naming.entities[entity.index] = match.name
            for (index, attribute) in entity.attributes.enumerated() where match.attributeIndex(named: attribute.name) == nil {
                if let renamed = match.attributes.first(where: { $0.renamedFrom == attribute.name && entity.attributeIndex(named: $0.name) == nil }) {
                    naming.attributes[entity.index][index] = renamed.name
                }
            }
            for (index, relationship) in entity.relationships.enumerated() where match.relationshipIndex(named: relationship.name) == nil {
                if let renamed = match.relationships.first(where: { $0.renamedFrom == relationship.name && entity.relationshipIndex(named: $0.name) == nil }) {
                    naming.relationships[entity.index][index] = renamed.name
                }
            }
        }
        return naming
    }
}

extension StoreLayout {
    /// The statements that take a store laid out as `self` to `renamed` (the same model under other
    /// names): indexes whose names change dropped (the caller creates them under their new names),
    /// tables, columns and join tables renamed, rows' `_entity` names updated.
    func renames(to renamed: StoreLayout) throws(MappingError) -> [String] {
        var statements: [String] = []
        for (rootIndex, table) in tables.sorted(by: { $0.key < $1.key }) {
            guard let target = renamed.tables[rootIndex], target.columns.count == table.columns.count else {
                throw MappingError(.spec, "the renames in the spec give two columns of \(table.name) one name", attribute: table.name)
            }
            let kept = Set(renamed.indexes(root: rootIndex).map(\.name))
            for index in indexes(root: rootIndex) where !kept.contains(index.name) {
                statements.append("DROP INDEX IF EXISTS \(quote(index.name))")
            }
            if target.name != table.name {
                statements.append("ALTER TABLE \(quote(table.name)) RENAME TO \(quote(target.name))")
            }
            for (old, new) in zip(table.columns, target.columns) where old != new {
                statements.append("ALTER TABLE \(quote(target.name)) RENAME COLUMN \(quote(old)) TO \(quote(new))")
            }
        }
        for entity in model.entities {
            let (old, new) = (naming.entities[entity.index], renamed.naming.entities[entity.index])
            guard old != new, let table = renamed.tables[root[entity.index]] else { continue }
            statements.append("UPDATE \(quote(table.name)) SET \"_entity\" = \(quote(new, "'")) WHERE \"_entity\" = \(quote(old, "'"))")
        }
        var moved: Set<String> = []
        for entity in model.entities {
            for (index, join) in joinTables[entity.index].enumerated() {
                guard let join, let new = renamed.joinTables[entity.index][index], new != join, moved.insert(join).inserted else { continue }
                statements.append("ALTER TABLE \(quote(join)) RENAME TO \(quote(new))")
            }
        }
        return statements
    }
}
