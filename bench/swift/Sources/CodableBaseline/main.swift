import BaselineGraph
import Foundation

/// Foundation's JSONDecoder into Codable structs, then the graph through dictionary identity maps.
struct Payload: Decodable {
    struct PhoneRow: Decodable { let number: String; let type: String }
    struct CompanyRow: Decodable { let id: Int64; let name: String; let country: String }
    struct PersonRow: Decodable {
        let id: Int64
        let name: String
        let email: String
        let birthdate: String
        let score: Double
        let active: Bool
        let company_id: Int64
        let phones: [PhoneRow]
        let company: CompanyRow?
    }
    let people: [PersonRow]
}

// One decoder for every round, as a program decoding the same shape again keeps it.
let decoder = JSONDecoder()

runBaseline { graph, bytes in
    guard let payload = try? decoder.decode(Payload.self, from: Data(bytes)) else {
        fail("the payload does not decode")
    }
    for row in payload.people {
        let person = graph.person(row.id)
        person.name = row.name
        person.email = row.email
        person.birthdate = epochSeconds(isoDate: row.birthdate)
        person.score = row.score
        person.active = row.active
        person.companyId = row.company_id
        if let inline = row.company {
            let company = graph.company(inline.id)
            company.name = inline.name
            company.country = inline.country
            Graph.link(person, to: company)
        }
        var phones: [Phone] = []
        phones.reserveCapacity(row.phones.count)
        for item in row.phones {
            let phone = graph.phone(item.number)
            phone.type = item.type
            phones.append(phone)
        }
        Graph.link(person, phones: phones)
    }
}
