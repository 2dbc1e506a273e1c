/// RestKit's RKPaginator: a path pattern with `:perPage`, `:currentPage`
/// and `:offset`, page metadata read from each response by the spec's `pagination` key paths, and the
/// page count computed from the object count when the API does not give it.
public struct Paginator: Sendable {
    /// Where the page metadata is in a response body (key paths; any may be absent).
    public struct Keys: Sendable, Equatable {
        public var perPage: String? = "per_page"
        public var currentPage: String? = "current_page"
        public var objectCount: String? = "total_entries"
        public var pageCount: String? = "total_pages"
        public var offset: String? = "offset"
        public init() {}
    }

    public let pattern: PathPattern
    public let keys: Keys
    public var perPage: Int
    /// `nil` while unknown (RestKit's NSNotFound).
    public private(set) var currentPage: Int?
    public private(set) var pageCount: Int?
    public private(set) var objectCount: Int?
    private var mappedOffset: Int?
    public private(set) var isLoaded = false

    public init(pattern: PathPattern, keys: Keys = Keys(), perPage: Int = 25) {
        self.pattern = pattern
        self.keys = keys
        self.perPage = perPage
    }

    /// The mapped offset if the API gave one, else `(currentPage - 1) * perPage`, 0 before any load.
    /// `.range` when that product does not fit in 64 bits (a page number from a response can be anything).
    public func offset() throws(MappingError) -> Int {
        if let mappedOffset { return mappedOffset }
        guard let currentPage, currentPage > 0 else { return 0 }
        return try Self.offset(ofPage: currentPage, perPage: perPage)
    }

    /// The path for loading `page`: the pattern filled with perPage, currentPage and offset.
    public func path(forPage page: Int) throws(MappingError) -> String {
        let values: [String: String] = ["perPage": String(perPage), "currentPage": String(page),
                                        "offset": String(try Self.offset(ofPage: page, perPage: perPage))]
        return pattern.interpolate(escaping: false) { values[$0] }
    }

    private static func offset(ofPage page: Int, perPage: Int) throws(MappingError) -> Int {
        let (offset, overflow) = max(page - 1, 0).multipliedReportingOverflow(by: perPage)
        guard !overflow else {
            throw MappingError(.range, "the offset of page \(page) at \(perPage) per page does not fit in 64 bits")
        }
        return offset
    }

    /// Reads the page metadata of a loaded page's body. Without it (keys missing), the page count
    /// and current page become 0, as RestKit's failed pagination mapping leaves them.
    public mutating func update(page: Int, body: JSONValue) {
        func number(_ keyPath: String?) -> Int? {
            guard let keyPath else { return nil }
            var current: JSONValue? = body
            for name in keyPath.split(separator: ".").map(String.init) { current = current?[name] }
            switch current {
            case .integer(let value)?: return Int(exactly: value)
            case .string(let text)?: return Int(text)
            case .real(let value)?: return Int(exactly: value)  // nil for 1e300 or 2.5: not a count
            default: return nil
            }
        }
        /// Counts and sizes are never negative; a server that says so is ignored, as for a missing key.
        func count(_ keyPath: String?) -> Int? { number(keyPath).flatMap { $0 >= 0 ? $0 : nil } }
        isLoaded = true
        let mappedPerPage = count(keys.perPage)
        let mappedCount = count(keys.objectCount)
        if mappedPerPage == nil && mappedCount == nil && count(keys.currentPage) == nil {
            pageCount = 0
            currentPage = 0
            return
        }
        if let mappedPerPage, mappedPerPage > 0 { perPage = mappedPerPage }
        currentPage = count(keys.currentPage) ?? page
        objectCount = mappedCount
        mappedOffset = count(keys.offset)
        if let pages = count(keys.pageCount) {
            pageCount = pages
        } else if let mappedCount, perPage > 0 {
            // Rounded up without `mappedCount + perPage - 1`, which overflows near Int.max.
            pageCount = mappedCount / perPage + (mappedCount % perPage == 0 ? 0 : 1)
        }
    }

    /// `currentPage < pageCount`; an error before a load or while the page count is unknown.
    public func hasNextPage() throws(MappingError) -> Bool {
        guard isLoaded, let pageCount, let currentPage else {
            throw MappingError(.misuse, "the paginator has not loaded a page with a known page count")
        }
        return currentPage < pageCount
    }

    public var hasPreviousPage: Bool { (currentPage ?? 0) > 1 }
}
