import ArgumentParser
import MappingCore
import MappingEngine

/// `mapping check SPEC`: loads a spec and lists what it declares, or fails with the error and its path.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a mapping spec and list its entities, identifications and mappings.")

    @Argument(help: "The spec (JSON).") var spec: String

    func run() throws {
        let (compiled, _) = try loadSpec(spec)
        print(describe(compiled))
    }
}

/// What a spec declares, as `check` prints it.
func describe(_ spec: CompiledSpec) -> String {
    let model = spec.model
    var lines = ["entities:"]
    for entity in model.entities {
        var heading = "  \(entity.name)"
        if let parent = entity.parent { heading += " (a \(model.entities[parent].name))" }
        let identification = entity.identification.map { entity.attributes[$0].name }
        heading += identification.isEmpty ? ", no identification" : ", identified by \(identification.joined(separator: ", "))"
        lines.append(heading)
        if !entity.attributes.isEmpty {
            lines.append("    attributes: " + entity.attributes.map { "\($0.name) \($0.type.rawValue)" + ($0.indexed ? " indexed" : "") }
                .joined(separator: ", "))
        }
        for relationship in entity.relationships {
            var text = "    \(relationship.name) -> \(relationship.toMany ? "many " : "")\(model.entities[relationship.destination].name)"
            var notes: [String] = []
            if relationship.ordered { notes.append("ordered") }
            if let inverse = model.inverse(of: relationship) { notes.append("inverse \(inverse.name)") }
            if relationship.deleteRule != .nullify { notes.append("delete rule \(relationship.deleteRule.rawValue)") }
            if !notes.isEmpty { text += " (" + notes.joined(separator: ", ") + ")" }
            lines.append(text)
        }
    }
    lines.append("mappings:")
    for mapping in spec.mappings {
        var text = "  \(mapping.name) -> \(model.entities[mapping.entity].name)"
        if let rootPath = mapping.rootPath { text += " at \(rootPath.description)" }
        text += ": \(mapping.attributes.count) attribute\(mapping.attributes.count == 1 ? "" : "s")"
        if !mapping.relationships.isEmpty {
            text += ", \(mapping.relationships.count) relationship\(mapping.relationships.count == 1 ? "" : "s")"
        }
        lines.append(text)
    }
    let dynamic = Set(spec.mappingNames).subtracting(spec.mappings.map(\.name)).sorted()
    if !dynamic.isEmpty { lines.append("dynamic mappings: " + dynamic.joined(separator: ", ")) }
    return lines.joined(separator: "\n")
}
