import MappingLock

/// A few reusable objects a context lends to one import at a time — a parser backend's buffers,
/// which cost milliseconds to set up. `take` hands one out or nothing (the caller makes a new one);
/// `give` keeps it for the next import unless the pool already holds enough.
public final class ReusablePool: Sendable {
    private let items = Locked<[any AnyObject & Sendable]>([])
    private let limit: Int

    public init(limit: Int = 2) { self.limit = limit }

    public func take() -> (any AnyObject & Sendable)? {
        items.withLock { $0.popLast() }
    }

    public func give(_ item: any AnyObject & Sendable) {
        items.withLock { if $0.count < limit { $0.append(item) } }
    }
}
