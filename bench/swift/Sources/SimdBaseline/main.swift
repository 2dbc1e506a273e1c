import BaselineGraph
import CSimdJSON
import Glibc

/// simdjson's tape walked by hand for exactly this payload: keys matched by length and bytes,
/// values read in place, strings made only for stored values. What a programmer would write
/// for speed, with no generality: the practical limit libmapping's fast backend is measured against.
struct Tape {
    let words: UnsafePointer<UInt64>
    let strings: UnsafePointer<UInt8>

    func tag(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: words[index] >> 56) }
    func after(_ index: Int) -> Int {
        switch tag(index) {
        case UInt8(ascii: "{"), UInt8(ascii: "["): Int(UInt32(truncatingIfNeeded: words[index]))
        case UInt8(ascii: "l"), UInt8(ascii: "u"), UInt8(ascii: "d"): index + 2
        default: index + 1
        }
    }
    func bytes(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let offset = Int(words[index] & 0x00FF_FFFF_FFFF_FFFF)
        let count = UnsafeRawPointer(strings + offset).loadUnaligned(as: UInt32.self)
        return UnsafeBufferPointer(start: strings + offset + 4, count: Int(count))
    }
    func string(_ index: Int) -> String { String(decoding: bytes(index), as: UTF8.self) }
    func int(_ index: Int) -> Int64 { Int64(bitPattern: words[index + 1]) }
    func double(_ index: Int) -> Double {
        tag(index) == UInt8(ascii: "d") ? Double(bitPattern: words[index + 1]) : Double(int(index))
    }
    /// Calls `body(keyIndex, valueIndex)` for each member of the object at `index`.
    func members(_ index: Int, _ body: (Int, Int) -> Void) {
        var at = index + 1
        let end = after(index) - 1
        while at < end {
            body(at, at + 1)
            at = after(at + 1)
        }
    }
    func elements(_ index: Int, _ body: (Int) -> Void) {
        var at = index + 1
        let end = after(index) - 1
        while at < end {
            body(at)
            at = after(at)
        }
    }
    func key(_ index: Int, is literal: StaticString) -> Bool {
        let name = bytes(index)
        guard name.count == literal.utf8CodeUnitCount, let start = name.baseAddress else { return false }
        return memcmp(start, literal.utf8Start, name.count) == 0
    }
}

guard let parser = csimdjson_parser_new() else { fail("no parser") }

runBaseline { graph, bytes in
    var document = csimdjson_document()
    let status = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { csimdjson_parse(parser, $0.baseAddress, $0.count, &document) }
    }
    guard status == CSIMDJSON_OK, let words = document.tape, let strings = document.strings else {
        fail("the payload does not parse")
    }
    let tape = Tape(words: words, strings: strings)
    tape.members(1) { key, list in
        guard tape.key(key, is: "people") else { return }
        tape.elements(list) { row in
            var id: Int64 = 0
            tape.members(row) { key, value in if tape.key(key, is: "id") { id = tape.int(value) } }
            let person = graph.person(id)
            tape.members(row) { key, value in
                switch tape.bytes(key).count {
                case 4 where tape.key(key, is: "name"): person.name = tape.string(value)
                case 5 where tape.key(key, is: "email"): person.email = tape.string(value)
                case 9 where tape.key(key, is: "birthdate"): person.birthdate = epochSeconds(isoDate: tape.bytes(value))
                case 5 where tape.key(key, is: "score"): person.score = tape.double(value)
                case 6 where tape.key(key, is: "active"): person.active = tape.tag(value) == UInt8(ascii: "t")
                case 10 where tape.key(key, is: "company_id"): person.companyId = tape.int(value)
                case 7 where tape.key(key, is: "company"):
                    var companyId: Int64 = 0
                    tape.members(value) { key, field in if tape.key(key, is: "id") { companyId = tape.int(field) } }
                    let company = graph.company(companyId)
                    tape.members(value) { key, field in
                        if tape.key(key, is: "name") { company.name = tape.string(field) }
                        if tape.key(key, is: "country") { company.country = tape.string(field) }
                    }
                    Graph.link(person, to: company)
                case 6 where tape.key(key, is: "phones"):
                    var phones: [Phone] = []
                    tape.elements(value) { item in
                        var number = "", type = ""
                        tape.members(item) { key, field in
                            if tape.key(key, is: "number") { number = tape.string(field) }
                            if tape.key(key, is: "type") { type = tape.string(field) }
                        }
                        let phone = graph.phone(number)
                        phone.type = type
                        phones.append(phone)
                    }
                    Graph.link(person, phones: phones)
                default: break
                }
            }
        }
    }
}
