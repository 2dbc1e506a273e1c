import MappingCore

/// Reads a caller's versioned options struct (its first field is `unsigned version`). Version 2 is
/// read whole; a version-1 struct, compiled before the fields version 2 added, is shorter, so only
/// the bytes before `addedAt` (the offset of the first added field) are copied and the added fields
/// keep the values of `empty`.
func readVersioned<T>(_ pointer: UnsafePointer<T>, empty: T, addedAt: Int?, name: String) throws(MappingError) -> T {
    let raw = UnsafeRawPointer(pointer)
    let version = raw.load(as: CUnsignedInt.self)
    var result = empty
    switch version {
    case 2:
        result = pointer.pointee
    case 1:
        withUnsafeMutableBytes(of: &result) { target in
            target.baseAddress?.copyMemory(from: raw, byteCount: min(addedAt ?? 0, target.count))
        }
    default:
        throw MappingError(.misuse, "\(name) version \(version) is not known (expected 1 or 2)")
    }
    return result
}

/// Fills a caller's versioned struct with its defaults (all zero) and sets its version: the whole
/// struct for version 2, only the bytes before `addedAt` for version 1 (a version-1 caller's struct
/// is that short). What `*_init()` does for callers that cannot use the `*_INIT` macro.
func initVersioned<T>(_ pointer: UnsafeMutablePointer<T>?, version: CUnsignedInt, addedAt: Int?,
                      name: String) -> CInt {
    withoutContext { () throws(MappingError) in
        guard let pointer else { throw MappingError(.misuse, "the \(name) is NULL") }
        let size: Int
        switch version {
        case 2: size = MemoryLayout<T>.size
        case 1: size = min(addedAt ?? 0, MemoryLayout<T>.size)
        default: throw MappingError(.misuse, "\(name) version \(version) is not known (expected 1 or 2)")
        }
        let raw = UnsafeMutableRawPointer(pointer)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        raw.storeBytes(of: version, as: CUnsignedInt.self)
    }
}
