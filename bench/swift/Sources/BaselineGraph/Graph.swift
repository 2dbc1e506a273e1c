import Glibc

/// The object graph both baselines build: what libmapping builds for bench/people.spec.json.
public final class Person {
    public let id: Int64
    public var name = "", email = ""
    public var birthdate: Int64 = 0  // seconds since 1970
    public var score = 0.0
    public var active = false
    public var companyId: Int64 = 0
    public var company: Company?
    public var phones: [Phone] = []
    init(id: Int64) { self.id = id }
}

public final class Company {
    public let id: Int64
    public var name = "", country = ""
    public var employees: [Person] = []
    init(id: Int64) { self.id = id }
}

public final class Phone {
    public let number: String
    public var type = ""
    public unowned(unsafe) var owner: Person?
    init(number: String) { self.number = number }
}

/// Identity maps per entity, and the relationship rules (inverses kept in step).
public struct Graph {
    public var people: [Int64: Person] = [:]
    public var companies: [Int64: Company] = [:]
    public var phones: [String: Phone] = [:]

    public init() {}

    public mutating func person(_ id: Int64) -> Person {
        if let found = people[id] { return found }
        let made = Person(id: id)
        people[id] = made
        return made
    }

    public mutating func company(_ id: Int64) -> Company {
        if let found = companies[id] { return found }
        let made = Company(id: id)
        companies[id] = made
        return made
    }

    public mutating func phone(_ number: String) -> Phone {
        if let found = phones[number] { return found }
        let made = Phone(number: number)
        phones[number] = made
        return made
    }

    public static func link(_ person: Person, to company: Company) {
        guard person.company !== company else { return }
        if let old = person.company { old.employees.removeAll { $0 === person } }
        person.company = company
        company.employees.append(person)
    }

    public static func link(_ person: Person, phones: [Phone]) {
        for phone in phones where phone.owner !== person {
            if let old = phone.owner { old.phones.removeAll { $0 === phone } }
            phone.owner = person
        }
        person.phones = phones
    }

    public var objectCount: Int { people.count + companies.count + phones.count }
}

/// "YYYY-MM-DD" as seconds since 1970 (days from civil, no Foundation).
public func epochSeconds(isoDate bytes: UnsafeBufferPointer<UInt8>) -> Int64 {
    func number(_ range: Range<Int>) -> Int64 {
        var value: Int64 = 0
        for index in range where index < bytes.count { value = value * 10 + Int64(bytes[index] &- 48) }
        return value
    }
    var year = number(0..<4)
    let month = number(5..<7), day = number(8..<10)
    year -= month <= 2 ? 1 : 0
    let era = (year >= 0 ? year : year - 399) / 400
    let yearOfEra = year - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return (era * 146_097 + dayOfEra - 719_468) * 86_400
}

public func epochSeconds(isoDate text: String) -> Int64 {
    var text = text
    return text.withUTF8 { epochSeconds(isoDate: $0) }
}

/// Reads the file at `path`; exits with a message if it cannot.
public func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fail("cannot open \(path)") }
    defer { fclose(file) }
    fseek(file, 0, SEEK_END)
    let size = ftell(file)
    fseek(file, 0, SEEK_SET)
    var bytes = [UInt8](repeating: 0, count: size)
    _ = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, size, file) }
    return bytes
}

public func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Times a cold load into a new graph and a re-load of the same bytes into it; prints
/// "cold update objects" (seconds, seconds, count) for bench/imports.py. A first, untimed round
/// warms the allocator, as the earlier rounds of bench/imports.py do for the library in its process.
public func runBaseline(_ load: (inout Graph, [UInt8]) -> Void) {
    guard CommandLine.arguments.count > 1 else { fail("usage: baseline FILE") }
    let bytes = readFile(CommandLine.arguments[1])
    var result = (cold: 0.0, update: 0.0, objects: 0)
    for _ in 0..<2 {
        var graph = Graph()
        let start = now()
        load(&graph, bytes)
        let cold = now() - start
        let again = now()
        load(&graph, bytes)
        result = (cold, now() - again, graph.objectCount)
    }
    print(result.cold, result.update, result.objects)
}

/// Writes `message` to standard error and exits with status 2.
public func fail(_ message: String) -> Never {
    let line = message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
