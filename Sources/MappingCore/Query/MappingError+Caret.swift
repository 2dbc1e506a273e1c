extension MappingError {
    /// The error with the predicate (or sort) it is about, and a caret under its column:
    ///
    ///     entity "Person" has no attribute or relationship "agge" (column 1): did you mean "age"? …
    ///       agge > 30
    ///       ^
    /// A long text is shown as a window around the column.
    func pointing(into text: String) -> MappingError {
        guard column > 0, !message.contains("\n") else { return self }
        let characters = Array(text)
        let at = min(column - 1, characters.count)
        let start = max(0, at - 60)
        let end = min(characters.count, at + 60)
        let prefix = start > 0 ? "…" : ""
        let shown = prefix + String(characters[start..<end]).map { $0.isNewline || $0 == "\t" ? " " : String($0) }.joined()
            + (end < characters.count ? "…" : "")
        var pointed = self
        pointed.message += "\n  " + shown + "\n  " + String(repeating: " ", count: prefix.count + at - start) + "^"
        return pointed
    }
}
