import CMappingHeader
import Dispatch
import MappingLock
import XCTest
@testable import Mapping

/// Four threads importing into and reading from one context at once. `make test` also runs this
/// under ThreadSanitizer.
final class ConcurrencyTests: XCTestCase {
    func testFourThreadsOnOneContext() throws {
        try fourThreads(parser: CInt(MAPPING_PARSER_JANSSON.rawValue))
    }

    /// The same with the simdjson parser: parses run outside the context's lock, each with a parser
    /// lent by the context's pool (ThreadSanitizer runs this suite in `make test`).
    func testFourThreadsOnOneContextWithSimdjson() throws {
        try XCTSkipUnless(Mapping.mapping_parser_is_available(CInt(MAPPING_PARSER_SIMDJSON.rawValue)) == 1, "built without simdjson")
        try fourThreads(parser: CInt(MAPPING_PARSER_SIMDJSON.rawValue))
    }

    /// Four threads each running transactions (some rolled back) while a fifth reads: a transaction
    /// is its thread's alone, so every count read is a whole number of committed batches, and the end
    /// count is exactly the committed ones.
    func testTransactionsOfFourThreadsNeverInterleave() throws {
        let context = try XCTUnwrap(CAPITests.newContext())
        defer { mapping_context_free(context) }
        XCTAssertEqual(mapping_context_set_busy_timeout(context, MAPPING_WAIT_FOREVER), 0)
        let handle = UInt(bitPattern: context)
        let failures = Locked(0)
        let partialReads = Locked(0)
        let committed = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 5) { thread in
            let context = OpaquePointer(bitPattern: handle)
            for round in 0..<25 {
                if thread == 4 {
                    var count = 0
                    if mapping_entity_count(context, "Person", &count) != 0 { failures.withLock { $0 += 1 } }
                    if count % 5 != 0 { partialReads.withLock { $0 += 1 } }
                    continue
                }
                guard mapping_context_begin(context) == 0 else { failures.withLock { $0 += 1 }; continue }
                for i in 0..<5 {
                    let id = 1000 * thread + 5 * round + i
                    if CAPITests.importJSON(context, #"[{"id": \#(id), "name": "t\#(thread)"}]"#) != 0 { failures.withLock { $0 += 1 } }
                }
                if round % 3 == 0 {
                    if mapping_context_rollback(context) != 0 { failures.withLock { $0 += 1 } }
                } else if mapping_context_commit(context) == 0 {
                    committed.withLock { $0 += 5 }
                } else {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertEqual(partialReads.withLock { $0 }, 0)
        var count = 0
        XCTAssertEqual(mapping_entity_count(context, "Person", &count), 0)
        XCTAssertEqual(count, committed.withLock { $0 })
        XCTAssertEqual(count, 4 * 16 * 5, "16 of each thread's 25 batches were committed")
    }

    /// Four threads importing while observers are added and removed: every commit is reported once
    /// to the observer that stays, on the committing thread, with exactly what it inserted.
    func testObserversSeeEveryCommitOfFourThreads() throws {
        let context = try XCTUnwrap(CAPITests.newContext())
        defer { mapping_context_free(context) }
        let inserted = Locked(0)
        let payload = Unmanaged.passRetained(inserted)
        defer { payload.release() }
        let observer: mapping_observer_fn = { _, changes, payload in
            var count = 0
            guard let payload, mapping_changes_count(changes, CInt(MAPPING_CHANGE_INSERTED.rawValue), &count) == 0 else { return }
            Unmanaged<Locked<Int>>.fromOpaque(payload).takeUnretainedValue().withLock { $0 += count }
        }
        let ignore: mapping_observer_fn = { _, _, _ in }
        var token: UInt64 = 0
        XCTAssertEqual(mapping_context_observe(context, observer, payload.toOpaque(), &token), 0)
        let failures = Locked(0)
        let handle = UInt(bitPattern: context)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            let context = OpaquePointer(bitPattern: handle)
            for round in 0..<25 {
                var extra: UInt64 = 0
                if mapping_context_observe(context, ignore, nil, &extra) != 0 { failures.withLock { $0 += 1 } }
                let id = 1000 * thread + round
                if CAPITests.importJSON(context, #"[{"id": \#(id), "name": "t"}]"#) != 0 { failures.withLock { $0 += 1 } }
                if mapping_context_unobserve(context, extra) != 0 { failures.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertEqual(inserted.withLock { $0 }, 100, "each of the 100 imports reported its one new person")
        XCTAssertEqual(mapping_context_unobserve(context, token), 0)
    }

    private func fourThreads(parser: Int32) throws {
        let context = try XCTUnwrap(CAPITests.newContext())
        defer { mapping_context_free(context) }
        XCTAssertEqual(Mapping.mapping_context_set_parser(context, parser), 0)
        let failures = Locked([0, 0, 0, 0])
        let handle = UInt(bitPattern: context)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            let context = OpaquePointer(bitPattern: handle)
            for round in 0..<30 {
                let people = (0..<20).map { i in
                    #"{"id": \#((i + round + thread) % 20), "name": "t\#(thread)", "company": {"id": \#((i + round) % 3)}}"#
                }
                if CAPITests.importJSON(context, "[" + people.joined(separator: ",") + "]") != 0 { failures.withLock { $0[thread] += 1 } }
                var person: UInt64 = 0
                var name: UnsafePointer<CChar>?
                if mapping_entity_find(context, "Person", "\(round % 20)", &person) != 0 { failures.withLock { $0[thread] += 1 } }
                if mapping_object_get_string(context, person, "name", &name, nil) != 0 || name?.pointee != CChar(UInt8(ascii: "t")) {
                    failures.withLock { $0[thread] += 1 }
                }
                var count = 0
                if mapping_entity_count(context, "Person", &count) != 0 || count != 20 { failures.withLock { $0[thread] += 1 } }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [0, 0, 0, 0])
        var companies: OpaquePointer?
        XCTAssertEqual(mapping_entity_all(context, "Company", &companies), 0)
        defer { mapping_list_free(companies) }
        var employees = 0
        for index in 0..<mapping_list_count(companies) {
            var company: UInt64 = 0
            var list: OpaquePointer?
            XCTAssertEqual(mapping_list_at(companies, index, &company), 0)
            XCTAssertEqual(mapping_object_related_list(context, company, "employees", &list), 0)
            employees += mapping_list_count(list)
            mapping_list_free(list)
        }
        XCTAssertEqual(employees, 20, "every person in exactly one company's employees")
    }
}
