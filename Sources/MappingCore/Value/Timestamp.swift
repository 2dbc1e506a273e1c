/// An instant in UTC with microsecond precision, counted from 1970-01-01T00:00:00Z.
/// Microseconds in an `Int64` span ±292,000 years, so every date a payload can spell fits.
public struct Timestamp: Hashable, Comparable, Sendable {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// `nil` when `seconds` is not finite or beyond the representable range.
    public init?(secondsSince1970 seconds: Double) {
        let micros = (seconds * 1_000_000).rounded()
        guard micros.isFinite, micros > -9.2e18, micros < 9.2e18 else { return nil }
        self.microseconds = Int64(micros)
    }

    /// A civil UTC date and time; `nil` when a field is out of range.
    init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
          microsecond: Int = 0, offsetSeconds: Int = 0) {
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (0..<1_000_000).contains(microsecond), abs(year) <= 300_000,
              abs(offsetSeconds) <= 86_400 else { return nil }
        // Years near ±292,000 reach the edge of 64-bit microseconds: checked, not trapped.
        let days = Int64(CivilCalendar.daysFromCivil(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3_600 + minute * 60 + second) - Int64(offsetSeconds)
        // Before 1970 the fraction is added to a whole second nearer zero, so that the earliest
        // instant (Int64.min microseconds) does not overflow on the way.
        let borrow = seconds < 0 && microsecond > 0
        let (micros, overflow) = (borrow ? seconds + 1 : seconds).multipliedReportingOverflow(by: 1_000_000)
        let (total, overflowAgain) = micros.addingReportingOverflow(Int64(microsecond) - (borrow ? 1_000_000 : 0))
        guard !overflow, !overflowAgain else { return nil }
        self.microseconds = total
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }

    public var secondsSince1970: Double { Double(microseconds) / 1_000_000 }

    /// The seconds since 1970 as exact decimal text ("-1.5", "10413792000.000001"): a double holds
    /// about 15 digits, so instants a few centuries from 1970 lose their microseconds in one.
    public var secondsText: String {
        let (whole, fraction) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        guard fraction != 0 else { return String(whole) }
        // Written as sign, whole seconds and six digits, each from a magnitude (no negation traps).
        let sign = microseconds < 0 ? "-" : ""
        var digits = String(fraction.magnitude)
        digits = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole.magnitude).\(digits)"
    }

    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC, the form RestKit writes — with six fraction digits when
    /// the instant has microseconds, and ISO 8601's expanded year (`+12345`, `-0044`) outside
    /// 0000–9999, so that the text reads back as this very instant.
    public var iso8601: String {
        let (days, microsOfDay) = microseconds.floorDivided(by: 86_400_000_000)
        let civil = CivilCalendar.civilFromDays(Int(days))
        let micros = Int(microsOfDay)
        let secondsOfDay = micros / 1_000_000
        let fraction = micros % 1_000_000
        let year = (0...9999).contains(civil.year) ? CivilCalendar.pad(civil.year, 4)
            : (civil.year < 0 ? "-" : "+") + CivilCalendar.pad(abs(civil.year), 4)
        return year + "-" + CivilCalendar.pad(civil.month, 2) + "-"
            + CivilCalendar.pad(civil.day, 2) + "T" + CivilCalendar.pad(secondsOfDay / 3_600, 2) + ":"
            + CivilCalendar.pad(secondsOfDay / 60 % 60, 2) + ":" + CivilCalendar.pad(secondsOfDay % 60, 2)
            + "." + (fraction % 1_000 == 0 ? CivilCalendar.pad(fraction / 1_000, 3) : CivilCalendar.pad(fraction, 6)) + "Z"
    }
}

extension Int64 {
    /// Quotient rounded toward negative infinity and a remainder in `0..<divisor`.
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = self / divisor
        var remainder = self % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}

/// Proleptic Gregorian calendar arithmetic (Howard Hinnant's days-from-civil algorithms).
enum CivilCalendar {
    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let padding = String(repeating: "0", count: max(0, width - digits.count))
        return (value < 0 ? "-" : "") + padding + digits
    }
}
