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

    /// Up to 16 bytes as two words, read with at most four loads (overlapping ones for lengths between
    /// the load sizes): together with the length, equal fingerprints mean equal bytes for a range of
    /// up to 16 bytes (for a longer one, equal first and last 8 bytes). Inlined into callers.
    @inlinable @inline(__always)
    public static func fingerprint(_ bytes: UnsafeBufferPointer<UInt8>) -> (low: UInt64, high: UInt64) {
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else { return (0, 0) }
        let raw = UnsafeRawPointer(base)
        if count >= 8 {
            return (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        }
        if count >= 4 {
            let first = UInt64(raw.loadUnaligned(as: UInt32.self))
            let last = UInt64(raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            return (first | last << 32, 0)
        }
        return (UInt64(base[0]) | UInt64(base[count / 2]) << 8 | UInt64(base[count - 1]) << 16, 0)
    }

    /// SplitMix64's finalizer: every input bit reaches every output bit (a bijection on 64 bits).
    @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var x = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return x ^ (x >> 31)
    }
}
