import MappingCore
import MappingEngine

/// Reads a caller's versioned options struct (its first field is `unsigned version`). Each version
/// adds fields at the end, so an older caller's struct is shorter: `sizes[v - 1]` is how many bytes
/// version `v` has (the newest is the whole struct). Only those bytes are copied; the fields a
/// later version added keep the values of `empty`.
func readVersioned<T>(_ pointer: UnsafePointer<T>, empty: T, sizes: [Int], name: String) throws(MappingError) -> T {
    let raw = UnsafeRawPointer(pointer)
    let version = raw.load(as: CUnsignedInt.self)
    guard version >= 1, Int(version) <= sizes.count else {
        throw MappingError(.misuse, "\(name) version \(version) is not known (expected 1 to \(sizes.count))")
    }
    var result = empty
    withUnsafeMutableBytes(of: &result) { target in
        target.baseAddress?.copyMemory(from: raw, byteCount: min(sizes[Int(version) - 1], target.count))
    }
    return result
}

/// Fills a caller's versioned struct with its defaults (all zero) and sets its version, writing only
/// the bytes that version has (an older caller's struct is that short). What `*_init()` does for
/// callers that cannot use the `*_INIT` macro.
func initVersioned<T>(_ pointer: UnsafeMutablePointer<T>?, version: CUnsignedInt, sizes: [Int],
                      name: String) -> CInt {
    withoutContext { () throws(MappingError) in
        guard let pointer else { throw MappingError(.misuse, "the \(name) is NULL") }
        guard version >= 1, Int(version) <= sizes.count else {
            throw MappingError(.misuse, "\(name) version \(version) is not known (expected 1 to \(sizes.count))")
        }
        let size = min(sizes[Int(version) - 1], MemoryLayout<T>.size)
        let raw = UnsafeMutableRawPointer(pointer)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        raw.storeBytes(of: version, as: CUnsignedInt.self)
    }
}
