/// The numbers of a JSON text that a double cannot hold exactly, so that a decimal read from a JSON
/// number keeps every digit it was written with.
///
/// Both parsers turn a JSON number with a fraction or exponent into a double, which keeps 15–17
/// significant digits: `12345678901234567890.123456789` becomes `1.2345678901234567e19`. A double
/// whose shortest form equals what the text spelled lost nothing; otherwise the text is the only
/// record of the value. This scans the text (once, and only when a reader first asks) for the
/// number literals that are not their double's shortest form, keyed by the double they parse to.
/// A double that several different literals round to is ambiguous: the reader reports an error
/// rather than guess.
///
/// The text must outlive the lookups: readers of a payload being imported hold one of these for
/// the duration of the import, while the caller's buffer is alive (see `ParsedPayload.parse`).
public final class NumberLiterals: @unchecked Sendable {
    /// What a double read from the text stands for.
    public enum Written: Equatable, Sendable {
        /// Every literal that parsed to it is its shortest form: the double is exact.
        case exact
        /// One literal with more digits than the double keeps parsed to it.
        case decimal(ExactDecimal)
        /// Several different literals parsed to it: which one this is cannot be told.
        case ambiguous
    }

    private let text: UnsafeRawBufferPointer
    /// Lossy literals by the bit pattern of the double they parse to; built on first use. Only the
    /// thread importing the payload reads it (hence unchecked Sendable).
    private var lossy: [UInt64: Written]?

    public init(text: UnsafeRawBufferPointer) { self.text = text }

    /// Scans now, while `text` is alive, for a document that is read after its bytes are gone.
    public init(scanningNow text: UnsafeRawBufferPointer) {
        self.text = UnsafeRawBufferPointer(start: nil, count: 0)
        lossy = Self.scan(text)
    }

    public func written(_ value: Double) -> Written {
        if lossy == nil { lossy = Self.scan(text) }
        return lossy?[value.bitPattern] ?? .exact
    }

    // MARK: Scanning

    /// Literals whose significant digits fit a double exactly (15 or fewer, in the normal range)
    /// are exact without parsing them; the rest are parsed to see.
    private static let safeDigits = 15
    private static let safeExponent = 290

    private static func scan(_ text: UnsafeRawBufferPointer) -> [UInt64: Written] {
        var table: [UInt64: Written] = [:]
        var shortLiterals = false
        forEachReal(in: text) { literal in
            guard mayBeLossy(literal) else {
                shortLiterals = true
                return
            }
            note(literal, in: &table)
        }
        // A short literal that parses to the same double as a lossy one makes that double ambiguous.
        // Only a text that has lossy literals pays for parsing its short ones.
        if shortLiterals, !table.isEmpty {
            forEachReal(in: text) { literal in
                guard !mayBeLossy(literal), let value = Double(String(decoding: literal, as: UTF8.self)) else { return }
                if table[value.bitPattern] != nil { table[value.bitPattern] = .ambiguous }
            }
        }
        return table
    }

    private static func note(_ literal: Slice<UnsafeRawBufferPointer>, in table: inout [UInt64: Written]) {
        let spelled = String(decoding: literal, as: UTF8.self)
        guard let value = Double(spelled), value.isFinite else { return }  // the parsers reject overflow
        let exact = ExactDecimal(parsing: spelled)
        if let exact, exact == ExactDecimal(value) { return }  // the shortest form: nothing lost
        switch (table[value.bitPattern], exact) {
        case (nil, let exact?): table[value.bitPattern] = .decimal(exact)
        case (.decimal(let seen)?, let exact?) where seen == exact: break
        default: table[value.bitPattern] = .ambiguous  // two spellings, or too long to keep exactly
        }
    }

    /// False for literals a double holds exactly: at most 15 significant digits, exponent in range.
    private static func mayBeLossy(_ literal: Slice<UnsafeRawBufferPointer>) -> Bool {
        var significant = 0      // digits from the first non-zero one to the last non-zero one
        var pendingZeros = 0
        var seenNonZero = false
        var integerDigits = 0    // mantissa digits before the point, for the leading digit's place
        var leadingFractionZeros = 0
        var inFraction = false
        var exponent = 0
        var index = literal.startIndex
        while index < literal.endIndex {
            let byte = literal[index]
            index += 1
            switch byte {
            case UInt8(ascii: "0"):
                if seenNonZero { pendingZeros += 1 } else if inFraction { leadingFractionZeros += 1 }
                if !inFraction { integerDigits += 1 }
            case UInt8(ascii: "1")...UInt8(ascii: "9"):
                significant += pendingZeros + 1
                pendingZeros = 0
                seenNonZero = true
                if !inFraction { integerDigits += 1 }
            case UInt8(ascii: "."):
                inFraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                var negative = false
                while index < literal.endIndex {
                    let next = literal[index]
                    index += 1
                    if next == UInt8(ascii: "-") { negative = true } else if next >= UInt8(ascii: "0"), next <= UInt8(ascii: "9") {
                        exponent = min(exponent * 10 + Int(next - UInt8(ascii: "0")), 100_000)
                    }
                }
                if negative { exponent = -exponent }
            default:
                break  // the sign
            }
        }
        guard seenNonZero else { return false }  // zero is exact however it is spelled
        let place = exponent + (integerDigits > 0 ? integerDigits : -leadingFractionZeros)
        return significant > safeDigits || abs(place) > safeExponent
    }

    /// Calls `body` with each number literal outside strings that has a fraction or an exponent, in
    /// text order: the parsers read only those as doubles (integers stay integers).
    private static func forEachReal(in text: UnsafeRawBufferPointer, _ body: (Slice<UnsafeRawBufferPointer>) -> Void) {
        var index = 0
        let end = text.count
        while index < end {
            let byte = text[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                while index < end, text[index] != UInt8(ascii: "\"") {
                    index += text[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
            } else if byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                let start = index
                var isReal = false
                while index < end, isNumberByte(text[index]) {
                    if text[index] == UInt8(ascii: ".") || text[index] | 0x20 == UInt8(ascii: "e") { isReal = true }
                    index += 1
                }
                if isReal { body(text[start..<index]) }
            } else {
                index += 1
            }
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
            || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }
}
