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
