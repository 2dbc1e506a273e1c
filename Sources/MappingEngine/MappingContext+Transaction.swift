extension MappingContext {
    /// Runs `body` in a transaction (`begin()` … `commit()`): its changes are kept together, and
    /// observers hear of them as one change set, or not at all. If `body` throws, or the commit's
    /// count rules fail, everything it changed is rolled back and the error is thrown. For Swift
    /// callers, who then cannot leave a transaction open on an early exit. Untyped: `body` may
    /// throw errors of its own, and a closure's errors are `any Error` unless it spells its type.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try begin()
        let result: T
        do {
            result = try body()
        } catch {
            // A failing change inside has already rolled the transaction back; this ends it otherwise.
            _ = rollbackTransactionLeftOpen()
            throw error
        }
        try commit()
        return result
    }
}
