import MappingCore

/// The names a `StoreLayout` makes its tables and columns from: per entity, its own name and the
/// names of its attributes and relationships.
///
/// Renames (`renamedFrom` in the spec) work through it: the model a store was written with, laid
/// out under the names the current spec gives its elements, is the store as it will be once
/// renamed. That layout and the store's own are parallel, element by element, so comparing them
/// gives the SQL that renames (`StoreLayout.renames(to:)`).
package struct Naming {
    package var entities: [String]
    package var attributes: [[String]]
    package var relationships: [[String]]

    /// The model's own names.
    package init(_ model: Model) {
        entities = model.entities.map(\.name)
        attributes = model.entities.map { $0.attributes.map(\.name) }
        relationships = model.entities.map { $0.relationships.map(\.name) }
    }

    /// `old`'s elements under the names `new` gives them. An element of `new` declaring
    /// `renamedFrom: "x"` renames `old`'s element `x`, when `old` has `x` and not the new name
    /// already (a store renamed before is left as it is). Such a claim comes before a match by
    /// name, so a spec may rename `name` to `title` and declare a new `name` in the same step.
    /// Inherited attributes and relationships take their names from the entity that declares them.
    package static func renaming(_ old: Model, to new: Model) -> Naming {
        var naming = Naming(old)
        for entity in old.entities {
            let claim = new.entities.first { $0.renamedFrom == entity.name && old.entity(named: $0.name) == nil }
            guard let match = claim ?? new.entity(named: entity.name) else { continue }
            naming.entities[entity.index] = match.name
            naming.attributes[entity.index] = renamed(entity.attributes.map(\.name), by: match.attributes.map { ($0.name, $0.renamedFrom) },
                                                      among: Set(entity.attributes.map(\.name)))
            naming.relationships[entity.index] = renamed(entity.relationships.map(\.name),
                                                         by: match.relationships.map { ($0.name, $0.renamedFrom) },
                                                         among: Set(entity.relationships.map(\.name)))
        }
        // A sub-entity's inherited elements (they come first) are named as its ancestors name them,
        // also when the sub-entity itself is gone from the spec.
        for entity in parentsFirst(old) {
            guard let parent = entity.parent else { continue }
            let inheritedAttributes = min(old.entities[parent].attributes.count, naming.attributes[entity.index].count)
            for index in 0..<inheritedAttributes { naming.attributes[entity.index][index] = naming.attributes[parent][index] }
            let inheritedRelationships = min(old.entities[parent].relationships.count, naming.relationships[entity.index].count)
            for index in 0..<inheritedRelationships { naming.relationships[entity.index][index] = naming.relationships[parent][index] }
        }
        return naming
    }

    /// `names` (an old entity's attributes or relationships) as renamed by the new entity's
    /// declarations: a `renamedFrom` claim on a name the old entity has, for a new name it has not.
    private static func renamed(_ names: [String], by declared: [(name: String, renamedFrom: String?)],
                                among oldNames: Set<String>) -> [String] {
        var claims: [String: String] = [:]
        for (name, from) in declared {
            if let from, oldNames.contains(from), !oldNames.contains(name), claims[from] == nil { claims[from] = name }
        }
        return names.map { claims[$0] ?? $0 }
    }

    /// The model's entities, every parent before its children.
    private static func parentsFirst(_ model: Model) -> [Entity] {
        func depth(_ entity: Entity) -> Int {
            var steps = 0
            var current = entity.parent
            while let parent = current, steps < model.entities.count {
                steps += 1
                current = model.entities.indices.contains(parent) ? model.entities[parent].parent : nil
            }
            return steps
        }
        return model.entities.sorted { depth($0) < depth($1) }
    }
}

extension StoreLayout {
    /// The statements that take a store laid out as `self` to `renamed` (the same model under other
    /// names): indexes whose names change dropped (the caller creates them under their new names),
    /// tables, columns and join tables renamed, rows' `_entity` names updated.
    package func renames(to renamed: StoreLayout) throws(MappingError) -> [String] {
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
            // Through temporary names, so that renaming p to q and q to r (or swapping) never meets
            // a column that still has the name.
            let moves = zip(table.columns, target.columns).filter { $0.0 != $0.1 }
            for (index, move) in moves.enumerated() {
                statements.append("ALTER TABLE \(quote(target.name)) RENAME COLUMN \(quote(move.0)) TO \(quote("_renaming_\(index)"))")
            }
            for (index, move) in moves.enumerated() {
                statements.append("ALTER TABLE \(quote(target.name)) RENAME COLUMN \(quote("_renaming_\(index)")) TO \(quote(move.1))")
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
