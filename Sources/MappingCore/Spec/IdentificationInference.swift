/// RestKit's rules for inferring an entity's identification when the spec names none:
/// the first attribute found among `<llamaCasedName>ID`,
/// `<snake_cased_name>_id`, `identifier`, `id`, `ID`, `URL`, `url`.
enum IdentificationInference {
    static func candidates(forEntityNamed name: String) -> [String] {
        [llamaCased(name) + "ID", snakeCased(name) + "_id", "identifier", "id", "ID", "URL", "url"]
    }

    static func infer(entityName: String, attributeNames: Set<String>) -> String? {
        candidates(forEntityNamed: entityName).first(where: attributeNames.contains)
    }

    /// `Monkey` → `monkey`, `ArcticMonkey` → `arcticMonkey`, `URLThing` → `urlThing`, `URL` → `url`.
    static func llamaCased(_ name: String) -> String {
        let characters = Array(name)
        var upperRun = 0
        while upperRun < characters.count, characters[upperRun].isUppercase { upperRun += 1 }
        let lowered: Int
        if upperRun == characters.count || upperRun <= 1 {
            lowered = upperRun == characters.count ? upperRun : min(upperRun, 1)
        } else {
            lowered = upperRun - 1  // keep the capital that starts the next word
        }
        return characters.prefix(lowered).map { $0.lowercased() }.joined() + String(characters.dropFirst(lowered))
    }

    /// Words as RestKit's pattern `((^[a-z]+)|([A-Z]{1}[a-z]+)|([A-Z]+(?=([A-Z][a-z])|($))))` finds
    /// them, lowercased and joined with `_`: `ArcticMonkeyURL` → `arctic_monkey_url`.
    static func snakeCased(_ name: String) -> String {
        let characters = Array(name)
        var words: [String] = []
        var index = 0
        func isLower(_ i: Int) -> Bool { i < characters.count && characters[i].isLowercase && characters[i].isASCII }
        func isUpper(_ i: Int) -> Bool { i < characters.count && characters[i].isUppercase && characters[i].isASCII }
        while index < characters.count {
            if index == 0 && isLower(0) {
                var end = 0
                while isLower(end) { end += 1 }
                words.append(String(characters[0..<end]))
                index = end
            } else if isUpper(index) && isLower(index + 1) {
                var end = index + 1
                while isLower(end) { end += 1 }
                words.append(String(characters[index..<end]))
                index = end
            } else if isUpper(index) {
                var end = index
                while isUpper(end) && !(isUpper(end) && isLower(end + 1)) { end += 1 }
                if end == characters.count || (isUpper(end) && isLower(end + 1)) {
                    words.append(String(characters[index..<end]))
                    index = end
                } else {
                    index = end + 1  // the run is not followed by a word or the end: no match here
                }
            } else {
                index += 1
            }
        }
        return words.map { $0.lowercased() }.joined(separator: "_")
    }
}
