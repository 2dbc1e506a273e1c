import MappingCore

/// Observers and watches as `AsyncSequence`s, for Swift callers: `for await change in
/// context.changes() { … }`. Each stream registers an observer (or a watch) that feeds it, and
/// removes it once the stream ends: when the consuming task is cancelled, or the stream and its
/// iterators are gone (a `break` out of the loop). Freeing the context finishes its streams.
extension MappingContext {
    /// The change set of every later commit on this context, in commit order. Change sets wait in
    /// the stream until read (`bufferingPolicy`: all of them by default).
    public func changes(bufferingPolicy: AsyncStream<ChangeSet>.Continuation.BufferingPolicy = .unbounded)
                        -> AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeSet.self, bufferingPolicy: bufferingPolicy)
        let end = StreamEnd(continuation)
        let token = addObserver { change in end.continuation.yield(change) }
        end.stopObserving(token, on: self)
        return stream
    }

    /// `watch(_:_:)` as a stream: the results of `request` after every commit that changed them or
    /// one of their objects. Throws now if the request does not compile (`.name`, `.predicate`).
    public func changes(of request: FetchRequest,
                        bufferingPolicy: AsyncStream<FetchChange>.Continuation.BufferingPolicy = .unbounded)
                        throws(MappingError) -> AsyncStream<FetchChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: FetchChange.self, bufferingPolicy: bufferingPolicy)
        let end = StreamEnd(continuation)
        let token = try watch(request) { change in end.continuation.yield(change) }
        end.stopObserving(token, on: self)
        return stream
    }
}

/// Held by the observer that feeds a stream. A stream whose continuation is dropped without
/// `finish()` never ends, so the consumer of a freed context would wait for good: the observer list
/// goes with the context, this with it, and its `deinit` finishes the stream.
private final class StreamEnd<Element: Sendable>: Sendable {
    let continuation: AsyncStream<Element>.Continuation

    init(_ continuation: AsyncStream<Element>.Continuation) { self.continuation = continuation }

    deinit { continuation.finish() }

    /// Once the consumer is gone the observer `token` is removed, so nothing more is collected for
    /// it. Weak: a stream kept after its context must not keep the context alive.
    func stopObserving(_ token: Int, on context: MappingContext) {
        continuation.onTermination = { [weak context] _ in context?.observers.removeLater(token) }
    }
}
