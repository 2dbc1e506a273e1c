/// An exact decimal number: `significand × 10^exponent`, kept in canonical form (no leading zeros in
/// the significand, no trailing zeros: `131.30` and `131.3` are one value and hash alike).
/// Foundation's `Decimal` is not used because the library links the standard library only.
public struct ExactDecimal: Hashable, Sendable, CustomStringConvertible {
    /// True for values below zero; zero is never negative.
    public let isNegative: Bool
    /// ASCII digits without leading zeros; "0" for zero.
    public let digits: String
    public let exponent: Int

    /// Bounds that keep plain-notation text and arithmetic finite for hostile input.
    static let maxDigits = 1_000
    static let maxExponent = 10_000

    public static let zero = ExactDecimal(isNegative: false, digits: "0", exponent: 0)

    private init(isNegative: Bool, digits: String, exponent: Int) {
        self.isNegative = isNegative
        self.digits = digits
        self.exponent = exponent
    }

    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]`; `nil` for anything else.
    public init?(parsing text: Substring) {
        var bytes = Array(text.utf8)[...]
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var mantissa: [UInt8] = []
        var fractionDigits = 0
        var sawPoint = false
        var sawDigit = false
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") {
                if sawPoint { return nil }
                sawPoint = true
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                sawDigit = true
                mantissa.append(byte)
                if sawPoint { fractionDigits += 1 }
            } else {
                return nil
            }
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()  // the e or E
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard !bytes.isEmpty else { return nil }
            for byte in bytes {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                exponent = exponent * 10 + Int(byte - UInt8(ascii: "0"))
                if exponent > ExactDecimal.maxExponent { return nil }
            }
            if exponentNegative { exponent = -exponent }
        }
        self.init(negative: negative, rawDigits: mantissa, exponent: exponent - fractionDigits)
    }

    public init?(parsing text: String) { self.init(parsing: text[...]) }

    public init(_ value: Int64) {
        let digits = Array(String(value.magnitude).utf8)
        self = ExactDecimal(negative: value < 0, rawDigits: digits, exponent: 0) ?? .zero
    }

    /// The shortest decimal that reads back as `value` (Swift's round-trip formatting); `nil` for
    /// infinities and NaN.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        self.init(parsing: value.description)
    }

    private init?(negative: Bool, rawDigits: [UInt8], exponent: Int) {
        var start = 0
        while start < rawDigits.count - 1, rawDigits[start] == UInt8(ascii: "0") { start += 1 }
        var end = rawDigits.count
        var exponent = exponent
        while end - start > 1, rawDigits[end - 1] == UInt8(ascii: "0") {
            end -= 1
            exponent += 1
        }
        let kept = rawDigits[start..<end]
        if kept.count == 1, kept.first == UInt8(ascii: "0") {
            self = .zero
            return
        }
        guard kept.count <= ExactDecimal.maxDigits, abs(exponent) <= ExactDecimal.maxExponent else {
            return nil
        }
        self.init(isNegative: negative, digits: String(decoding: kept, as: UTF8.self), exponent: exponent)
    }

    public var isZero: Bool { digits == "0" }

    /// True when the value has no fractional part.
    public var isIntegral: Bool { exponent >= 0 }

    /// The value as an `Int64` if it is integral and in range.
    public var int64Value: Int64? {
        guard isIntegral, exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for byte in digits.utf8 {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            magnitude = sum
        }
        for _ in 0..<exponent {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            magnitude = times10
        }
        if isNegative {
            if magnitude == UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The nearest `Double`.
    public var doubleValue: Double {
        Double(scientific) ?? (isNegative ? -Double.infinity : Double.infinity)
    }

    /// Plain notation with every digit: `131.3`, `-0.001`, `1200`.
    public var description: String {
        var text = isNegative ? "-" : ""
        if exponent >= 0 {
            text += digits
            if !isZero { text += String(repeating: "0", count: exponent) }
        } else {
            let fraction = -exponent
            if digits.utf8.count > fraction {
                let integerCount = digits.utf8.count - fraction
                text += digits.prefix(integerCount) + "." + digits.dropFirst(integerCount)
            } else {
                text += "0." + String(repeating: "0", count: fraction - digits.utf8.count) + digits
            }
        }
        return text
    }

    private var scientific: String { (isNegative ? "-" : "") + digits + "e" + String(exponent) }

    /// -1, 0 or 1 as `a` is below, equal to or above `b`, exactly: every digit counts.
    public static func compare(_ a: ExactDecimal, _ b: ExactDecimal) -> Int {
        if a.isNegative != b.isNegative { return a.isNegative ? -1 : 1 }
        let magnitude = compareMagnitudes(a, b)
        return a.isNegative ? -magnitude : magnitude
    }

    private static func compareMagnitudes(_ a: ExactDecimal, _ b: ExactDecimal) -> Int {
        if a.isZero || b.isZero { return a.isZero ? (b.isZero ? 0 : -1) : 1 }
        // Canonical digits have no leading zero, so the place of the leading digit orders them first.
        let (x, y) = (Array(a.digits.utf8), Array(b.digits.utf8))
        let (leadA, leadB) = (x.count + a.exponent, y.count + b.exponent)
        if leadA != leadB { return leadA < leadB ? -1 : 1 }
        for index in 0..<max(x.count, y.count) {
            let dx = index < x.count ? x[index] : UInt8(ascii: "0")
            let dy = index < y.count ? y[index] : UInt8(ascii: "0")
            if dx != dy { return dx < dy ? -1 : 1 }
        }
        return 0
    }
}

extension ExactDecimal: Comparable {
    public static func < (a: ExactDecimal, b: ExactDecimal) -> Bool { compare(a, b) < 0 }
}
