/// Bytes appended through a raw pointer, for writing JSON text: an `[UInt8]` checks that it is
/// uniquely referenced and has room on every append, a byte or a run at a time, and that was a
/// fifth of writing GitHub's event payloads as `json` attributes. Not copyable: one owner, which
/// frees the bytes.
public struct ByteOutput: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count: Int
    @usableFromInline var capacity: Int

    public init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        self.base = .allocate(capacity: self.capacity)
        self.count = 0
    }

    deinit { base.deallocate() }

    /// How many bytes were written.
    public var written: Int { count }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        (base + count).initialize(to: byte)
        count &+= 1
    }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if capacity &- count < bytes.count { grow(toHold: bytes.count) }
        (base + count).initialize(from: source, count: bytes.count)
        count &+= bytes.count
    }

    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    public mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Room for `more` bytes beyond those written: the capacity doubled until they fit.
    @usableFromInline
    mutating func grow(toHold more: Int) {
        let needed = count &+ more
        var grown = capacity
        while grown < needed, grown < Int.max / 2 { grown &*= 2 }
        grown = max(grown, needed)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.moveInitialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }

    /// The bytes written, valid during the call.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes written, as text (they are UTF-8: JSON written from valid strings).
    public var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    public var array: [UInt8] { withBytes { Array($0) } }
}
