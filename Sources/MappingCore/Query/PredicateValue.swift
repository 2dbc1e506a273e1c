/// A value while a predicate is evaluated: attribute values, objects, collections and literals, with
/// the comparisons NSPredicate makes between them.
enum PredicateValue: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(ExactDecimal)
    case string(String)
    case date(Timestamp)
    case object(ObjectID)
    /// A JSON object, compared by its canonical text (two are equal exactly when their texts are).
    case json(JSONText)
    case many([PredicateValue])

    init(_ value: AttributeValue?) {
        switch value {
        case nil: self = .null
        case .string(let text)?: self = .string(text)
        case .integer(let number)?: self = .integer(number)
        case .double(let number)?: self = .double(number)
        case .decimal(let number)?: self = .decimal(number)
        case .boolean(let flag)?: self = .bool(flag)
        case .date(let instant)?: self = .date(instant)
        case .json(let json)?: self = PredicateValue(json)
        }
    }

    /// A `json` attribute's value, read from its text only as far as a predicate needs: an object
    /// is compared as text and an array is split into its elements, neither parsed (a predicate
    /// over a `json` attribute parsed every value it tested, a tree per object per fetch); a scalar
    /// is read as one.
    init(_ json: JSONText) {
        switch json.text.utf8.first {
        case UInt8(ascii: "{"): self = .json(json)
        case UInt8(ascii: "["): self = .many((json.elements ?? []).map { PredicateValue($0) })
        case UInt8(ascii: "n"): self = .null  // a canonical text starting so is `null`
        default: self = PredicateValue(json: json.value)
        }
    }

    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .integer(let number): self = .integer(number)
        case .real(let number): self = .double(number)
        case .decimal(let number): self = .decimal(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .many(elements.map { PredicateValue(json: $0) })
        case .object: self = .json(JSONText(json))
        }
    }

    /// This literal as a value of an attribute of `type` (coerced as on import); `nil` for null,
    /// objects and values that do not convert.
    func attributeValue(as type: AttributeType) -> AttributeValue? {
        let json: JSONValue
        switch self {
        case .string(let text): json = .string(text)
        case .integer(let number): json = .integer(number)
        case .double(let number): json = .real(number)
        case .decimal(let number): json = .decimal(number)
        case .bool(let flag): json = .bool(flag)
        case .date(let instant): json = .string(instant.iso8601)
        default: return nil
        }
        guard case .value(let value)? = try? Coercion.coerce(json, reader: JSONValueReader(), to: type, depthLimit: 4) else {
            return nil
        }
        return value
    }

    var elements: [PredicateValue]? {
        if case .many(let elements) = self { return elements }
        return nil
    }

    private var number: Double? {
        switch self {
        case .integer(let number): Double(number)
        case .double(let number): number
        case .decimal(let number): number.doubleValue
        case .bool(let flag): flag ? 1 : 0
        case .string(let text): NumberText.double(text)
        default: nil
        }
    }

    /// The value as an exact decimal, for comparisons that a double would round: any comparison with
    /// a decimal, and integers beyond 2^53 against doubles.
    private var exact: ExactDecimal? {
        switch self {
        case .integer(let number): ExactDecimal(number)
        case .double(let number): ExactDecimal(number)
        case .decimal(let number): number
        case .bool(let flag): ExactDecimal(flag ? 1 : 0)
        case .string(let text): ExactDecimal(parsing: text)
        default: nil
        }
    }

    private static func needsExact(_ a: PredicateValue, _ b: PredicateValue) -> Bool {
        switch (a, b) {
        case (.decimal, _), (_, .decimal): return true
        case (.integer(let n), .double), (.double, .integer(let n)): return n.magnitude > 1 << 53
        default: return false
        }
    }

    /// Numbers compared as exact decimals when a double would round, else as doubles.
    private static func compareNumbers(_ a: PredicateValue, _ b: PredicateValue) -> Int? {
        if needsExact(a, b) {
            guard let x = a.exact, let y = b.exact else { return nil }
            return ExactDecimal.compare(x, y)
        }
        guard let x = a.number, let y = b.number else { return nil }
        return x < y ? -1 : (x == y ? 0 : (x > y ? 1 : nil))
    }

    /// The two values made comparable: a date against a string (parsed) or a number (epoch seconds),
    /// a number against a numeric string or a boolean.
    private static func unify(_ a: PredicateValue, _ b: PredicateValue) -> (PredicateValue, PredicateValue) {
        switch (a, b) {
        case (.date, .string(let text)):
            return (a, DateParser.parse(text).map(PredicateValue.date) ?? b)
        case (.string(let text), .date):
            return (DateParser.parse(text).map(PredicateValue.date) ?? a, b)
        case (.date, _):
            return (a, b.number.flatMap { Timestamp(secondsSince1970: $0) }.map(PredicateValue.date) ?? b)
        case (_, .date):
            return (a.number.flatMap { Timestamp(secondsSince1970: $0) }.map(PredicateValue.date) ?? a, b)
        default:
            return (a, b)
        }
    }

    /// Equality, with `[c]`/`[d]` for strings; null equals only null.
    static func equal(_ a: PredicateValue, _ b: PredicateValue, fold: TextFold) -> Bool {
        let (a, b) = unify(a, b)
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)): return AttributeValue.sameBytes(fold.apply(x), fold.apply(y))
        case (.bool(let x), .bool(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        case (.json(let x), .json(let y)): return x == y
        default:
            return compareNumbers(a, b) == 0
        }
    }

    /// Ordering, or `nil` when the values cannot be ordered (then every ordering comparison is false).
    static func order(_ a: PredicateValue, _ b: PredicateValue, fold: TextFold) -> Int? {
        let (a, b) = unify(a, b)
        switch (a, b) {
        case (.string(let x), .string(let y)):
            // By bytes, as equality and identities compare (UTF-8 byte order is code point order).
            let (x, y) = (fold.apply(x).utf8, fold.apply(y).utf8)
            return x.lexicographicallyPrecedes(y) ? -1 : (x.elementsEqual(y) ? 0 : 1)
        case (.date(let x), .date(let y)):
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer(let x), .integer(let y)):
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.null, _), (_, .null), (.object, _), (_, .object), (.json, _), (_, .json), (.many, _), (_, .many):
            return nil
        default:
            return compareNumbers(a, b)
        }
    }
}

/// How strings are compared: `[c]` folds case, `[d]` folds diacritics (Latin letters with accents
/// to their base letter: é → e, ß → ss, Ø → O).
struct TextFold: Sendable {
    let caseInsensitive: Bool
    let diacriticInsensitive: Bool

    static let exact = TextFold(caseInsensitive: false, diacriticInsensitive: false)

    func apply(_ text: String) -> String {
        var result = text
        if diacriticInsensitive { result = TextFold.foldDiacritics(result) }
        if caseInsensitive { result = result.lowercased() }
        return result
    }

    private static func foldDiacritics(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            // Combining marks (U+0300–U+036F) are dropped; precomposed letters map to their base.
            if (0x300...0x36F).contains(scalar.value) { continue }
            if let base = baseLetters[scalar] { output += base } else { output.unicodeScalars.append(scalar) }
        }
        return output
    }

    private static let baseLetters: [Unicode.Scalar: String] = {
        let groups: [(String, String)] = [
            ("ÀÁÂÃÄÅĀĂĄǍ", "A"), ("àáâãäåāăąǎ", "a"), ("ÇĆĈĊČ", "C"), ("çćĉċč", "c"), ("ĎĐ", "D"), ("ďđ", "d"),
            ("ÈÉÊËĒĔĖĘĚ", "E"), ("èéêëēĕėęě", "e"), ("ĜĞĠĢ", "G"), ("ĝğġģ", "g"), ("ĤĦ", "H"), ("ĥħ", "h"),
            ("ÌÍÎÏĨĪĬĮİǏ", "I"), ("ìíîïĩīĭįıǐ", "i"), ("Ĵ", "J"), ("ĵ", "j"), ("Ķ", "K"), ("ķ", "k"),
            ("ĹĻĽĿŁ", "L"), ("ĺļľŀł", "l"), ("ÑŃŅŇ", "N"), ("ñńņň", "n"), ("ÒÓÔÕÖØŌŎŐǑ", "O"), ("òóôõöøōŏőǒ", "o"),
            ("ŔŖŘ", "R"), ("ŕŗř", "r"), ("ŚŜŞŠ", "S"), ("śŝşš", "s"), ("ŢŤŦ", "T"), ("ţťŧ", "t"),
            ("ÙÚÛÜŨŪŬŮŰŲǓ", "U"), ("ùúûüũūŭůűųǔ", "u"), ("Ŵ", "W"), ("ŵ", "w"), ("ÝŸŶ", "Y"), ("ýÿŷ", "y"),
            ("ŹŻŽ", "Z"), ("źżž", "z"), ("ß", "ss"), ("Æ", "AE"), ("æ", "ae"), ("Œ", "OE"), ("œ", "oe"),
        ]
        var table: [Unicode.Scalar: String] = [:]
        for (letters, base) in groups {
            for scalar in letters.unicodeScalars { table[scalar] = base }
        }
        return table
    }()
}
