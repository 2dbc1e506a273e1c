import MappingCore

/// Calls `body` with the bytes of `array`, keeping the typed error that the standard library's
/// (untyped) `withUnsafeBytes` would widen to `any Error`.
package func withBytes<T>(of array: [UInt8],
                  _ body: (UnsafeRawBufferPointer) throws(MappingError) -> T) throws(MappingError) -> T {
    let result = array.withUnsafeBytes { buffer in
        Result { () throws(MappingError) -> T in try body(buffer) }
    }
    return try result.get()
}

