#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte comparison and hash mixing shared by the arena and the core's values and identity tables.
public enum Bytes {
    /// Whether two byte ranges are equal: short ones word by word (a call costs more than they
    /// do), longer ones with libc's memcmp, which compares with vector instructions.
    public static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let left = a.baseAddress, let right = b.baseAddress else { return a.count == 0 }
        guard a.count <= 32 else { return memcmp(left, right, a.count) == 0 }
        var offset = 0
        while offset + 8 <= a.count {
            guard a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
                return false
            }
            offset += 8
        }
        while offset < a.count {
            guard a[offset] == b[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// SplitMix64's finalizer: every input bit reaches every output bit (a bijection on 64 bits).
    @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var x = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return x ^ (x >> 31)
    }
}
