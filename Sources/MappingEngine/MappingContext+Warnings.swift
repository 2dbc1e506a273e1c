/// Warnings no call returns: what the context's database says on its own (PostgreSQL's notices and
/// warnings, which libpq would print on the program's stderr), handed to a function the program
/// sets, once the call that received them has released the context.
extension MappingContext {
    /// Sets the function warnings go to (nil: they are dropped, the default), replacing any set
    /// before. It runs on the thread whose call received them, after that call has released the
    /// context, so it may call the context.
    public func setWarningHandler(_ handler: (@Sendable (String) -> Void)?) {
        warningHandler.withLock { $0 = handler }
    }

    func warn(_ messages: [String]) {
        guard let handler = warningHandler.withLock({ $0 }) else { return }
        for message in messages { handler(message) }
    }
}
