@testable import MappingPostgres
import MappingCore
import MappingSQL
import XCTest

/// The PostgreSQL store's text formats, which need no server: the connection string's own
/// parameter, array literals, and commit announcements split to PostgreSQL's payload limit.
/// (The store itself is tested against a real server: Tests/postgres.)
final class PostgresTextTests: XCTestCase {
    func testTheSchemaParameterIsTakenOutAndTheRestGoesToLibpq() throws {
        let plain = try ConnectionString.split("postgresql://u@h/db")
        XCTAssertEqual(plain.conninfo, "postgresql://u@h/db")
        XCTAssertEqual(plain.schema, "mapping")
        let named = try ConnectionString.split("postgresql:///db?host=/tmp/x&schema=my%20app&sslmode=disable")
        XCTAssertEqual(named.conninfo, "postgresql:///db?host=/tmp/x&sslmode=disable")
        XCTAssertEqual(named.schema, "my app")
        XCTAssertEqual(try ConnectionString.split("postgres:///db?schema=s").conninfo, "postgres:///db")
        for bad in ["postgresql:///db?schema=", "postgresql:///db?schema=a%00b",
                    "postgresql:///db?schema=" + String(repeating: "x", count: 49)] {
            XCTAssertThrowsError(try ConnectionString.split(bad)) { error in
                XCTAssertEqual((error as? MappingError)?.code, .misuse, bad)
            }
        }
        XCTAssertTrue(StoreLocation.isPostgreSQL("postgres://x"))
        XCTAssertFalse(StoreLocation.isPostgreSQL("/tmp/postgresql://x.db"))
    }

    func testArrayLiteralsQuoteTextAndSpellSpecialNumbersAsPostgreSQLDoes() {
        var array = ArrayText()
        for value: StoredValue in [.integer(-5), .null, .text(#"a "b" \c"#), .text(""), .real(.infinity), .real(-.infinity),
                                   .real(.nan), .real(0.1), .text("NULL")] {
            array.append(value)
        }
        XCTAssertEqual(array.literal, #"{-5,NULL,"a \"b\" \\c","",Infinity,-Infinity,NaN,0.1,"NULL"}"#)
        XCTAssertEqual(array.count, 9)
        XCTAssertEqual(ArrayText().literal, "{}")
        XCTAssertEqual(StoreLayout.integerArray([1, 2]), "{1,2}")
        XCTAssertEqual(StoreLayout.integerArray([]), "{}")
    }

    func testAnnouncementsFitThePayloadLimitAndReadBackWhatWasSent() {
        var announcement = Announcement()
        var keys: Set<Int64> = []
        for id in Int64(1)...5_000 {
            let key = StoreLayout.globalKey(root: Int(id % 3), id: id)
            announcement.changed(key)
            keys.insert(key)
        }
        let gone = StoreLayout.globalKey(root: 2, id: 99_999)
        announcement.deleted(gone)
        // A new row is announced as inserted (once, though also written).
        let new = StoreLayout.globalKey(root: 1, id: 70_000)
        announcement.inserted(new)
        announcement.changed(new)
        let payloads = announcement.payloads(from: "me")
        XCTAssertGreaterThan(payloads.count, 1, "5,000 keys do not fit one payload")
        XCTAssertTrue(payloads.allSatisfy { $0.utf8.count <= Announcement.limit && $0.hasPrefix("me ") })
        XCTAssertEqual(payloads.joined().components(separatedBy: "70000").count, 2, "a new row is named once")
        var written: Set<Int64> = []
        var inserted: Set<Int64> = []
        var deleted: Set<Int64> = []
        for payload in payloads {
            Announcement.parse(payload, skipping: "other", written: &written, inserted: &inserted, deleted: &deleted)
        }
        XCTAssertEqual(written, keys.union([new]))
        XCTAssertEqual(inserted, [new])
        XCTAssertEqual(deleted, [gone])

        var own: Set<Int64> = []
        for payload in payloads { Announcement.parse(payload, skipping: "me", written: &own, inserted: &inserted, deleted: &deleted) }
        XCTAssertTrue(own.isEmpty, "a store skips its own announcements")

        // A later deletion of a written row wins, and a later write of a deleted one.
        var laterWritten: Set<Int64> = [StoreLayout.globalKey(root: 1, id: 7)]
        var laterInserted: Set<Int64> = [StoreLayout.globalKey(root: 1, id: 7)]
        var laterDeleted: Set<Int64> = []
        Announcement.parse("x d1:7 w0:3", skipping: "me", written: &laterWritten, inserted: &laterInserted, deleted: &laterDeleted)
        XCTAssertEqual(laterWritten, [StoreLayout.globalKey(root: 0, id: 3)])
        XCTAssertEqual(laterDeleted, [StoreLayout.globalKey(root: 1, id: 7)])
        XCTAssertEqual(laterInserted, [], "a deleted row is no longer new")
        // Garbage is ignored, not trusted.
        Announcement.parse("x w:1 wz:2 w1:-4,abc,0 d99999:1 :1 : w w1: d: i:2 q1:3", skipping: "me", written: &laterWritten,
                           inserted: &laterInserted, deleted: &laterDeleted)
        Announcement.parse(":1", skipping: "me", written: &laterWritten, inserted: &laterInserted, deleted: &laterDeleted)
        XCTAssertEqual(laterInserted, [])
        XCTAssertEqual(laterWritten, [StoreLayout.globalKey(root: 0, id: 3)])
    }
}
