import MappingCore
import MappingLock

/// The simdjson parsers a context keeps between its imports: setting one up costs milliseconds and
/// its buffers' first use a page fault per page, so an import takes one from here (or makes a new
/// one) and its document gives it back when released, unless the pool already holds `limit` or the
/// parser grew large (`SimdDocument`). Each context has its own (`MappingContext.parsers`), so
/// closing a context frees its parsers: a parser's buffers are several times the largest document it
/// parsed (13 MB of people left 60 MB resident after their context was closed, when the process
/// kept the parsers). jansson keeps nothing between parses, so only the simdjson backend uses it.
package final class ParserPool: Sendable {
    private let items = Locked<[any AnyObject & Sendable]>([])
    private let limit: Int

    /// `limit`: the parsers kept at most, for that many imports parsing at once (a parse runs
    /// outside the context's lock); more at once make parsers that are freed after use.
    package init(limit: Int = 2) { self.limit = limit }

    func take() -> (any AnyObject & Sendable)? {
        items.withLock { $0.popLast() }
    }

    func give(_ item: any AnyObject & Sendable) {
        items.withLock { if $0.count < limit { $0.append(item) } }
    }

    /// How many parsers are kept now.
    package var count: Int { items.withLock { $0.count } }
}
