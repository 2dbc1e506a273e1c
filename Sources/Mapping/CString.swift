import Glibc
import MappingCore
import MappingEngine

/// Conversions between C strings and Swift at the C boundary. Memory handed to C is allocated with
/// malloc so that `mapping_free` (free) releases it.
enum CString {
    /// A malloc'ed, NUL-terminated copy of `bytes`; `nil` only if memory runs out.
    static func copy(_ bytes: some Collection<UInt8>) -> UnsafeMutablePointer<CChar>? {
        let count = bytes.count
        guard let raw = malloc(count + 1) else { return nil }
        let buffer = UnsafeMutableRawBufferPointer(start: raw, count: count + 1)
        // One copy where the bytes are contiguous (a native string's UTF-8 view, an array): the
        // generic copy walked a string byte by byte, 37 instructions a byte of serialized JSON.
        let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
            if let base = source.baseAddress { memcpy(raw, base, count) }
        }
        if copied == nil { _ = buffer.initializeMemory(as: UInt8.self, from: bytes) }
        buffer[count] = 0
        return raw.assumingMemoryBound(to: CChar.self)
    }

    /// A required NUL-terminated argument as a Swift string.
    static func argument(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(MappingError) -> String {
        guard let pointer else { throw MappingError(.misuse, "\(name) is NULL") }
        return try text(pointer, name)
    }

    /// An optional NUL-terminated argument: `nil` for NULL.
    static func optional(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(MappingError) -> String? {
        guard let pointer else { return nil }
        return try text(pointer, name)
    }

    /// Invalid UTF-8 is refused, as in payloads and specs: repairing it would make different byte
    /// strings name the same thing.
    private static func text(_ pointer: UnsafePointer<CChar>, _ name: String) throws(MappingError) -> String {
        guard let text = String(validatingCString: pointer) else {
            throw MappingError(.misuse, "\(name) is not valid UTF-8")
        }
        return text
    }

    /// A buffer argument of `length` bytes, or NUL-terminated when `length` is
    /// `MAPPING_NUL_TERMINATED` (`(size_t)-1`, a macro with a cast, which Swift does not import).
    static func buffer(_ pointer: UnsafePointer<CChar>?, length: UInt,
                       _ name: String) throws(MappingError) -> UnsafeRawBufferPointer {
        guard let pointer else { throw MappingError(.misuse, "\(name) is NULL") }
        let count: Int
        if length == UInt.max {
            count = strlen(pointer)
        } else {
            guard let exact = Int(exactly: length) else { throw MappingError(.misuse, "\(name) is too long") }
            count = exact
        }
        return UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer), count: count)
    }
}

/// Writes `value` through a required output pointer.
func store<T>(_ value: T, into pointer: UnsafeMutablePointer<T>?) throws(MappingError) {
    guard let pointer else { throw MappingError(.misuse, "the output pointer is NULL") }
    pointer.pointee = value
}
