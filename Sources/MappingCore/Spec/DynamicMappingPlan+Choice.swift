/// How a dynamic mapping picks the mapping for one representation, in the order its doc states:
/// matchers, then the case value at `keyPath`, then the JSON type, then the default.
extension DynamicMappingPlan {
    /// The chosen mapping's index; `nil` when the plan declines the representation. `probe` is the
    /// value at `keyPath` (the representation itself when there is no key path; `nil` when missing).
    func choice<Reader: JSONReader>(for node: Reader.Node, probe: Reader.Node?, reader: Reader,
                                    valueDepth: Int) throws(MappingError) -> Int? {
        if !matchers.isEmpty {
            let representation = try reader.copyValue(of: node, depthLimit: valueDepth)
            let evaluator = PredicateEvaluator(store: nil)
            if let matched = matchers.first(where: { evaluator.matches(representation: representation, $0.predicate) }) {
                return matched.mapping
            }
        }
        if let probe, let text = Self.caseText(probe, reader: reader), let chosen = cases[text] {
            return chosen
        }
        let type = if let probe { Self.typeName(probe, reader: reader) } else { "null" }
        if !byType.isEmpty, let chosen = byType[type] {
            return chosen
        }
        return defaultMapping
    }

    /// A scalar in the payload as the text cases are written in; `nil` for objects and arrays.
    static func caseText<Reader: JSONReader>(_ node: Reader.Node, reader: Reader) -> String? {
        switch reader.kind(of: node) {
        case .string: reader.string(of: node)
        case .integer: String(reader.integer(of: node))
        case .real: JSONValue.real(reader.real(of: node)).text()
        case .true: "true"
        case .false: "false"
        case .null: "null"
        case .object, .array: nil
        }
    }

    /// The JSON type name `byType` is keyed by.
    static func typeName<Reader: JSONReader>(_ node: Reader.Node, reader: Reader) -> String {
        switch reader.kind(of: node) {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .integer, .real: "number"
        case .true, .false: "boolean"
        case .null: "null"
        }
    }
}
