/// Strict parsing of numbers written as strings in payloads (`"187"`, `"131.3"`, `"-1e3"`).
/// Unlike `strtod`, nothing but a plain decimal number is accepted: no hex, `inf`, `nan` or spaces.
enum NumberText {
    /// True for `[+-]digits[.digits][(e|E)[+-]digits]` (also `.5` and `5.`).
    static func isDecimalNumber(_ text: String) -> Bool {
        ExactDecimal(parsing: text) != nil || isLongNumber(text)
    }

    static func double(_ text: String) -> Double? {
        guard isDecimalNumber(text), let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// Numbers whose digits exceed `ExactDecimal`'s bounds are still numbers to `Double`.
    private static func isLongNumber(_ text: String) -> Bool {
        var sawDigit = false
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                if offset != 0 { return false }
            default: return false
            }
        }
        return sawDigit
    }
}
