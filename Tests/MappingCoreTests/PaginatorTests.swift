import XCTest
@testable import MappingCore

/// RestKit's RKPaginator cases, without the transport: the host loads each page.
final class PaginatorTests: XCTestCase {
    private func paginator(_ pattern: String, perPage: Int = 25) throws -> Paginator {
        Paginator(pattern: try PathPattern(pattern), perPage: perPage)
    }

    private func page(_ perPage: Int, _ total: Int, _ current: Int) -> JSONValue {
        .object([JSONMember("per_page", .integer(Int64(perPage))), JSONMember("total_entries", .integer(Int64(total))),
                 JSONMember("current_page", .integer(Int64(current))), JSONMember("entries", .array([]))])
    }

    func testPathsO1O2O9() throws {
        XCTAssertEqual(try paginator("/paginate?per_page=:perPage&page=:currentPage").path(forPage: 1), "/paginate?per_page=25&page=1")
        XCTAssertEqual(try paginator("/paginate?limit=:perPage&offset=:offset").path(forPage: 1), "/paginate?limit=25&offset=0")
        XCTAssertEqual(try paginator("/paginate?limit=:perPage&offset=:offset").path(forPage: 3), "/paginate?limit=25&offset=50")
        XCTAssertTrue(try paginator("/paginate?param1=value1&page=:currentPage").path(forPage: 2).contains("param1=value1"))
    }

    func testLoadingPagesO3O4() throws {
        var paginator = try self.paginator("/paginate?per_page=:perPage&page=:currentPage")
        paginator.update(page: 1, body: page(3, 6, 1))
        XCTAssertEqual(paginator.perPage, 3)
        XCTAssertEqual(paginator.objectCount, 6)
        XCTAssertEqual(paginator.currentPage, 1)
        XCTAssertEqual(paginator.pageCount, 2, "ceil(6 / 3), computed")
        XCTAssertTrue(try paginator.hasNextPage())
        paginator.update(page: 2, body: page(3, 6, 2))
        XCTAssertFalse(try paginator.hasNextPage())
        XCTAssertTrue(paginator.hasPreviousPage)
    }

    func testNextAndPreviousO5() throws {
        var paginator = try self.paginator("/p?page=:currentPage", perPage: 5)
        XCTAssertThrowsError(try paginator.hasNextPage(), "before a load: unknown")
        for (current, next, previous) in [(1, true, false), (2, true, true), (3, false, true)] {
            paginator.update(page: current, body: .object([JSONMember("current_page", .integer(Int64(current))),
                                                           JSONMember("total_pages", .integer(3))]))
            XCTAssertEqual(try paginator.hasNextPage(), next)
            XCTAssertEqual(paginator.hasPreviousPage, previous)
        }
    }

    func testOffsetO6AndEmptyListO7() throws {
        var paginator = try self.paginator("/p?page=:currentPage")
        XCTAssertEqual(try paginator.offset(), 0)
        paginator.update(page: 2, body: .object([JSONMember("current_page", .integer(2)), JSONMember("total_entries", .integer(60))]))
        XCTAssertEqual(try paginator.offset(), 25)
        var empty = try self.paginator("/paginate/?per_page=:perPage&page=:currentPage")
        empty.update(page: 1, body: .object([JSONMember("per_page", .integer(10)), JSONMember("total_entries", .integer(0)),
                                             JSONMember("current_page", .integer(1)), JSONMember("entries", .array([])),
                                             JSONMember("total_pages", .integer(0))]))
        XCTAssertEqual(empty.pageCount, 0)
        XCTAssertEqual(empty.objectCount, 0)
        var unmapped = try self.paginator("/p?page=:currentPage")
        unmapped.update(page: 1, body: .object([JSONMember("entries", .array([]))]))
        XCTAssertEqual(unmapped.pageCount, 0, "no metadata: RestKit's failed pagination mapping")
        XCTAssertEqual(unmapped.currentPage, 0)
    }
}
