/// The JSON path of the representation being mapped, kept as a stack while the importer descends
/// and turned into text (`$.data.people[3].company`) only when an error needs it.
struct PayloadPath {
    enum Step {
        case key(String)
        case index(Int)
    }

    private(set) var steps: [Step] = []

    mutating func push(_ step: Step) { steps.append(step) }
    mutating func pop() { _ = steps.popLast() }

    func text(adding keyPath: KeyPath? = nil) -> String {
        var text = "$"
        for step in steps { text = Self.append(step, to: text) }
        guard let keyPath else { return text }
        guard keyPath.anchor == .current else { return text + " (" + keyPath.description + ")" }
        for step in keyPath.steps { text = JSONPathText.appending(text, key: step.key.name) }
        return text
    }

    private static func append(_ step: Step, to text: String) -> String {
        switch step {
        case .key(let key): JSONPathText.appending(text, key: key)
        case .index(let index): JSONPathText.appending(text, index: index)
        }
    }
}
