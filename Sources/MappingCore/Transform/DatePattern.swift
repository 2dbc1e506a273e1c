/// A Unicode date pattern (`dd/MM/yyyy HH:mm`, `EEE, d MMM yyyy h:mm a Z`, `yyyy-MM-dd'T'HH:mm:ss.SSSX`)
/// that reads and writes dates in UTC unless the pattern carries a zone. Fields: `y`/`Y` year
/// (`yy`: two digits, 1970–2069), `M` month (`M`/`MM` digits, `MMM` `Jan`, `MMMM` `January`), `d` day,
/// `H` hour 0–23, `h` hour 1–12 with `a` (AM/PM), `m` minute, `s` second, `S` fraction (as many
/// digits as letters), `Z`/`X` zone (`Z`, `+hh`, `+hhmm`, `+hh:mm`, `GMT`, `UTC`), `E` weekday
/// name (read and checked, not used). Other ASCII letters are reserved; `'text'` is literal text and
/// `''` a quote; any other character is literal.
package struct DatePattern: Sendable, Equatable {
    enum Token: Sendable, Equatable {
        case field(Character, Int)
        case literal(String)
    }

    let tokens: [Token]
    let text: String

    static let fields: Set<Character> = ["y", "Y", "M", "d", "H", "h", "m", "s", "S", "a", "Z", "X", "E"]

    init(_ pattern: String) throws(MappingError) {
        text = pattern
        var tokens: [Token] = []
        let characters = Array(pattern)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                var literal = ""
                index += 1
                if index < characters.count, characters[index] == "'" {
                    tokens.append(.literal("'"))
                    index += 1
                    continue
                }
                while index < characters.count {
                    if characters[index] == "'" {
                        if index + 1 < characters.count, characters[index + 1] == "'" {
                            literal.append("'")
                            index += 2
                            continue
                        }
                        break
                    }
                    literal.append(characters[index])
                    index += 1
                }
                guard index < characters.count else {
                    throw MappingError(.spec, "unterminated quote in date pattern \"\(pattern)\"")
                }
                index += 1
                tokens.append(.literal(literal))
            } else if character.isASCII && character.isLetter {
                guard DatePattern.fields.contains(character) else {
                    throw MappingError(.spec, "date pattern \"\(pattern)\" uses \"\(character)\", which is not supported (use y M d H h m s S a Z X E, and quote literal letters)")
                }
                var count = 1
                while index + count < characters.count, characters[index + count] == character { count += 1 }
                tokens.append(.field(character, count))
                index += count
            } else {
                tokens.append(.literal(String(character)))
                index += 1
            }
        }
        guard !tokens.isEmpty else { throw MappingError(.spec, "the date pattern is empty") }
        self.tokens = tokens
    }

    // MARK: Reading

    func parse(_ input: String) -> Timestamp? {
        var scanner = ByteScanner(input)
        var year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, micros = 0, offset = 0
        var pm: Bool?
        var twelveHour = false
        for token in tokens {
            switch token {
            case .literal(let text):
                for scalar in text.unicodeScalars { guard scanner.take(scalar) else { return nil } }
            case .field(let field, let count):
                switch field {
                case "y", "Y":
                    if count == 2 {
                        guard let value = scanner.digits(exactly: 2) else { return nil }
                        year = value < 70 ? 2000 + value : 1900 + value
                    } else {
                        guard let (value, _) = scanner.digitRun(max: max(count, 4)) else { return nil }
                        year = value
                    }
                case "M":
                    if count >= 3 {
                        let names = count == 3 ? DateParser.months : DatePattern.monthNames
                        guard let name = scanner.letters(), let found = names.firstIndex(of: name) else { return nil }
                        month = found + 1
                    } else {
                        guard let (value, _) = scanner.digitRun(max: 2) else { return nil }
                        month = value
                    }
                case "d", "H", "h", "m", "s":
                    guard let (value, _) = scanner.digitRun(max: 2) else { return nil }
                    switch field {
                    case "d": day = value
                    case "H": hour = value
                    case "h":
                        hour = value
                        twelveHour = true
                    case "m": minute = value
                    default: second = value
                    }
                case "S":
                    guard let (value, digits) = scanner.digitRun(max: count) else { return nil }
                    micros = value
                    var scale = digits
                    while scale < 6 { micros *= 10; scale += 1 }
                    while scale > 6 { micros /= 10; scale -= 1 }
                case "a":
                    guard let marker = scanner.letters()?.uppercased(), marker == "AM" || marker == "PM" else { return nil }
                    pm = marker == "PM"
                case "E":
                    guard let name = scanner.letters(),
                          DateParser.weekdays.contains(where: { $0 == name || $0.prefix(3) == name }) else { return nil }
                default:  // Z, X
                    guard let zone = scanner.isoOrNamedZone() else { return nil }
                    offset = zone
                }
            }
        }
        guard scanner.atEnd else { return nil }
        if twelveHour {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (pm == true ? 12 : 0)
        }
        return Timestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                         microsecond: micros, offsetSeconds: offset)
    }

    // MARK: Writing

    func format(_ instant: Timestamp) -> String {
        let (days, microsOfDay) = instant.microseconds.floorDivided(by: 86_400_000_000)
        let civil = CivilCalendar.civilFromDays(Int(days))
        let secondsOfDay = Int(microsOfDay / 1_000_000)
        let hour = secondsOfDay / 3_600
        // 1970-01-01 was a Thursday.
        let weekday = Int((days % 7 + 7 + 3) % 7)
        var output = ""
        for token in tokens {
            switch token {
            case .literal(let text):
                output += text
            case .field(let field, let count):
                switch field {
                case "y", "Y": output += count == 2 ? CivilCalendar.pad(civil.year % 100, 2) : CivilCalendar.pad(civil.year, count)
                case "M":
                    switch count {
                    case 3: output += DateParser.months[civil.month - 1]
                    case 4...: output += DatePattern.monthNames[civil.month - 1]
                    default: output += CivilCalendar.pad(civil.month, count)
                    }
                case "d": output += CivilCalendar.pad(civil.day, count)
                case "H": output += CivilCalendar.pad(hour, count)
                case "h": output += CivilCalendar.pad(hour % 12 == 0 ? 12 : hour % 12, count)
                case "m": output += CivilCalendar.pad(secondsOfDay / 60 % 60, count)
                case "s": output += CivilCalendar.pad(secondsOfDay % 60, count)
                case "S":
                    let fraction = CivilCalendar.pad(Int(microsOfDay % 1_000_000), 6)
                    output += count <= 6 ? String(fraction.prefix(count)) : fraction + String(repeating: "0", count: count - 6)
                case "a": output += hour < 12 ? "AM" : "PM"
                case "E": output += count >= 4 ? DateParser.weekdays[weekday] : String(DateParser.weekdays[weekday].prefix(3))
                case "X": output += "Z"
                default: output += count >= 5 ? "Z" : "+0000"  // Z
                }
            }
        }
        return output
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August",
                             "September", "October", "November", "December"]
}

extension ByteScanner {
    /// `Z`, `±hh`, `±hhmm`, `±hh:mm`, or `GMT`/`UTC` optionally followed by `±hh:mm`: seconds east of UTC.
    mutating func isoOrNamedZone() -> Int? {
        if take("Z") { return 0 }
        var named = false
        if take("G") {
            guard take("M"), take("T") else { return nil }
            named = true
        } else if take("U") {
            guard take("T"), take("C") else { return nil }
            named = true
        }
        guard let sign = sign() else { return named ? 0 : nil }
        guard let hours = digits(exactly: 2) else { return nil }
        _ = take(":")
        let minutes = digits(exactly: 2) ?? 0
        guard hours <= 23, minutes <= 59 else { return nil }
        return sign * (hours * 3_600 + minutes * 60)
    }
}
