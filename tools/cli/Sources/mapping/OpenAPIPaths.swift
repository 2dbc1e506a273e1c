import MappingCore

/// From an OpenAPI path to a path pattern: `{name}` becomes `:name`, and literal text that would
/// otherwise read as part of a parameter is escaped (`{name}.json` → `:name\.json`,
/// `{base}...{head}` → `:base\...:head`). What a pattern cannot say is a `Skip` naming the
/// document's own path.
enum OpenAPIPaths {
    struct Skip: Error {
        let reason: String
    }

    /// The pattern for `path` and its parameters' names (the document's), in order; `naming` gives
    /// a parameter another name in the pattern (`issue_number` → `number`, `repo` →
    /// `repository.name`, for an entity's route). The pattern is checked by the engine's own
    /// parser, so a draft never carries one it would refuse.
    static func pattern(_ path: String, naming: [String: String] = [:]) throws(Skip) -> (pattern: String, parameters: [String]) {
        var pattern = ""
        var parameters: [String] = []
        var name: String?
        /// Right after a parameter, a character that could continue its name must be escaped.
        var afterParameter = false
        for character in path {
            if var open = name {
                if character == "}" {
                    guard !open.isEmpty else { throw Skip(reason: "an empty parameter {}") }
                    guard open.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                        throw Skip(reason: "parameter {\(open)}: a path pattern's parameter names are letters, digits and _")
                    }
                    if afterParameter { throw Skip(reason: "parameters {\(parameters.last ?? "")} and {\(open)} have no text between them") }
                    pattern += ":" + (naming[open] ?? open)
                    parameters.append(open)
                    name = nil
                    afterParameter = true
                } else {
                    open.append(character)
                    name = open
                }
                continue
            }
            if character == "{" {
                name = ""
                continue
            }
            switch character {
            case "\\": pattern += "\\\\"
            case ":": pattern += "\\:"
            case "." where afterParameter, "@" where afterParameter: pattern += "\\" + String(character)
            default:
                if afterParameter, character.isLetter || character.isNumber || character == "_" {
                    throw Skip(reason: "\"\(character)\" right after {\(parameters.last ?? "")} would read as part of its name")
                }
                pattern.append(character)
            }
            afterParameter = false
        }
        if name != nil { throw Skip(reason: "a { without its }") }
        if pattern.isEmpty { throw Skip(reason: "an empty path") }
        let parsed: PathPattern
        do {
            parsed = try PathPattern(pattern)
        } catch {
            throw Skip(reason: error.message)
        }
        guard parsed.parameterNames == parameters.map({ naming[$0] ?? $0 }) else { throw Skip(reason: "reads as the parameters \(parsed.parameterNames)") }
        return (pattern, parameters)
    }
}
