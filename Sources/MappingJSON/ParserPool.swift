import MappingCore
import MappingLock

/// The simdjson parsers the process keeps between imports: setting one up costs milliseconds, so an
/// import takes one from here (or makes a new one) and its document gives it back when released,
/// unless the pool already holds enough or the parser grew large (`SimdDocument`). jansson keeps
/// nothing between parses, so only the simdjson backend uses the pool.
final class ParserPool: Sendable {
    static let shared = ParserPool(limit: 4)

    private let items = Locked<[any AnyObject & Sendable]>([])
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func take() -> (any AnyObject & Sendable)? {
        items.withLock { $0.popLast() }
    }

    func give(_ item: any AnyObject & Sendable) {
        items.withLock { if $0.count < limit { $0.append(item) } }
    }

    /// How many parsers are kept now.
    var count: Int { items.withLock { $0.count } }

    /// Frees every kept parser.
    func drain() { items.withLock { $0.removeAll() } }
}
