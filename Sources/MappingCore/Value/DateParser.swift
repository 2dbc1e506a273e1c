/// Parses the date strings RestKit's default transformers accept, all in UTC
/// unless the text carries a zone:
/// - ISO 8601 date-time `yyyy-MM-dd(T| )HH:mm:ss[.fraction][Z|±hh[:]mm]` (zone-less means UTC,
///   up to microseconds of the fraction kept), and date-only `yyyy-MM-dd` (UTC midnight);
/// - `MM/dd/yyyy`;
/// - RFC 1123 `EEE, dd MMM yyyy HH:mm:ss zzz`, RFC 850 `EEEE, dd-MMM-yy HH:mm:ss zzz`,
///   asctime `EEE MMM d HH:mm:ss yyyy`;
/// - epoch seconds written as a number string (`"1387481530"`, `"-1.5"`);
/// - .NET's `/Date(1112715000000-0500)/` (milliseconds).
enum DateParser {
    static func parse(_ text: String) -> Timestamp? {
        parse(bytes: Array(text.utf8))
    }

    /// The same, from UTF-8 bytes: those a parser holds, read in place (the importer's path: no
    /// copy, and no `String` made unless every fixed format fails and the text may be epoch seconds).
    static func parse<Bytes: RandomAccessCollection>(bytes: Bytes) -> Timestamp? where Bytes.Element == UInt8, Bytes.Index == Int {
        var scanner = ByteScanner(bytes)
        if let date = iso8601(&scanner) { return date }
        scanner = ByteScanner(bytes)
        if let date = slashed(&scanner) { return date }
        scanner = ByteScanner(bytes)
        if let date = httpDate(&scanner) { return date }
        scanner = ByteScanner(bytes)
        if let date = dotNet(&scanner) { return date }
        if let seconds = NumberText.double(String(decoding: bytes, as: UTF8.self)) { return Timestamp(secondsSince1970: seconds) }
        return nil
    }

    /// Four digits, or ISO 8601's expanded form for years outside 0000–9999: a sign and four to six
    /// digits (`+12345`, `-0044`), as the serializer writes them.
    private static func isoYear<Bytes>(_ s: inout ByteScanner<Bytes>) -> Int? {
        guard let sign = s.sign() else { return s.digits(exactly: 4) }
        guard let (value, count) = s.digitRun(max: 6), count >= 4 else { return nil }
        return sign * value
    }

    /// ISO 8601 only: a date-time (zone-less = UTC) or a date.
    static func iso8601(_ text: String) -> Timestamp? {
        var scanner = ByteScanner(text)
        return iso8601(&scanner)
    }

    private static func iso8601<Bytes>(_ s: inout ByteScanner<Bytes>) -> Timestamp? {
        guard let year = isoYear(&s), s.take("-"), let month = s.digits(exactly: 2), s.take("-"),
              let day = s.digits(exactly: 2) else { return nil }
        if s.atEnd { return Timestamp(year: year, month: month, day: day) }
        guard s.take("T") || s.take("t") || s.take(" ") || s.take("\t"),
              let hour = s.digits(exactly: 2), s.take(":"), let minute = s.digits(exactly: 2), s.take(":"),
              let second = s.digits(exactly: 2) else { return nil }
        var micros = 0
        if s.take(".") {
            guard let (value, count) = s.digitRun(max: 9), count >= 1 else { return nil }
            micros = value
            var scale = count
            while scale < 6 { micros *= 10; scale += 1 }
            while scale > 6 { micros /= 10; scale -= 1 }
        }
        var offset = 0
        if s.take("Z") || s.take("z") {
            offset = 0
        } else if let sign = s.sign() {
            guard let hours = s.digits(exactly: 2) else { return nil }
            _ = s.take(":")
            guard let minutes = s.digits(exactly: 2), hours <= 23, minutes <= 59 else { return nil }
            offset = sign * (hours * 3_600 + minutes * 60)
        }
        guard s.atEnd else { return nil }
        return Timestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                         microsecond: micros, offsetSeconds: offset)
    }

    /// .NET's `/Date(1112715000000-0500)/`: milliseconds since 1970; the offset only says where the
    /// writer was, the instant is the milliseconds.
    private static func dotNet<Bytes>(_ s: inout ByteScanner<Bytes>) -> Timestamp? {
        guard s.take("/"), s.take("D"), s.take("a"), s.take("t"), s.take("e"), s.take("(") else { return nil }
        let negative = s.take("-")
        guard let (millis, _) = s.digitRun(max: 15) else { return nil }
        if let _ = s.sign() {
            guard s.digits(exactly: 4) != nil else { return nil }
        }
        guard s.take(")"), s.take("/"), s.atEnd else { return nil }
        return Timestamp(microseconds: Int64(negative ? -millis : millis) * 1_000)
    }

    private static func slashed<Bytes>(_ s: inout ByteScanner<Bytes>) -> Timestamp? {
        guard let month = s.digits(exactly: 2), s.take("/"), let day = s.digits(exactly: 2), s.take("/"),
              let year = s.digits(exactly: 4), s.atEnd else { return nil }
        return Timestamp(year: year, month: month, day: day)
    }

    /// RFC 1123, RFC 850 and asctime: all start with a weekday name.
    private static func httpDate<Bytes>(_ s: inout ByteScanner<Bytes>) -> Timestamp? {
        guard let weekday = s.letters(), weekdays.contains(where: { weekday == $0 || weekday == $0.prefix(3) })
        else { return nil }
        if s.take(",") {
            guard s.take(" "), let day = s.digits(exactly: 2) else { return nil }
            let year: Int
            let month: Int
            if s.take(" ") {  // RFC 1123: dd MMM yyyy
                guard let m = s.monthName(), s.take(" "), let y = s.digits(exactly: 4) else { return nil }
                (month, year) = (m, y)
            } else {          // RFC 850: dd-MMM-yy
                guard s.take("-"), let m = s.monthName(), s.take("-"), let y = s.digits(exactly: 2) else {
                    return nil
                }
                (month, year) = (m, y < 70 ? 2000 + y : 1900 + y)
            }
            guard s.take(" "), let (hour, minute, second) = s.clock(), s.take(" "),
                  let offset = s.zone(), s.atEnd else { return nil }
            return Timestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                             offsetSeconds: offset)
        }
        // asctime: EEE MMM d HH:mm:ss yyyy, the day padded with a space.
        guard s.take(" "), let month = s.monthName(), s.take(" ") else { return nil }
        _ = s.take(" ")
        guard let (day, _) = s.digitRun(max: 2), s.take(" "), let (hour, minute, second) = s.clock(),
              s.take(" "), let year = s.digits(exactly: 4), s.atEnd else { return nil }
        return Timestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

/// A cursor over the UTF-8 bytes of a short string, for the fixed-format parsers above: an array,
/// or a parser's bytes read in place.
struct ByteScanner<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    private let bytes: Bytes
    private var index: Int

    init(_ bytes: Bytes) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var atEnd: Bool { index == bytes.endIndex }

    private var current: UInt8? { index >= bytes.startIndex && index < bytes.endIndex ? bytes[index] : nil }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard let byte = current, character.isASCII, byte == UInt8(character.value) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if take("+") { return 1 }
        if take("-") { return -1 }
        return nil
    }

    /// Up to `max` digits (at least one): their value and how many there were. Digits beyond `max`
    /// are left for the next step, which then fails where the format expects something else.
    mutating func digitRun(max: Int) -> (Int, Int)? {
        var value = 0
        var count = 0
        while count < max, let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            count += 1
            index += 1
        }
        return count > 0 ? (value, count) : nil
    }

    mutating func digits(exactly count: Int) -> Int? {
        guard let (value, found) = digitRun(max: count), found == count else { return nil }
        return value
    }

    mutating func letters() -> String? {
        let start = index
        while let byte = current, (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") {
            index += 1
        }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    mutating func monthName() -> Int? {
        guard let name = letters(), let month = DateParser.months.firstIndex(of: name) else { return nil }
        return month + 1
    }

    mutating func clock() -> (Int, Int, Int)? {
        guard let hour = digits(exactly: 2), take(":"), let minute = digits(exactly: 2), take(":"),
              let second = digits(exactly: 2) else { return nil }
        return (hour, minute, second)
    }

    /// `GMT`, `UTC`, `Z` or `±hhmm`, as seconds east of UTC.
    mutating func zone() -> Int? {
        if let sign = sign() {
            guard let hours = digits(exactly: 2), let minutes = digits(exactly: 2) else { return nil }
            return sign * (hours * 3_600 + minutes * 60)
        }
        guard let name = letters(), ["GMT", "UTC", "UT", "Z"].contains(name) else { return nil }
        return 0
    }
}

extension ByteScanner where Bytes == [UInt8] {
    init(_ text: String) { self.init(Array(text.utf8)) }
}
