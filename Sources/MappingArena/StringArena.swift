/// The string values of one graph, as UTF-8 bytes each followed by a NUL, in chunks that never move
/// and are freed only with the arena. A stored string is an 8-byte `Ref`; equal strings are stored
/// once (short ones, where repeats are common: cities, statuses, tags). Because bytes never move, a
/// C caller can hold a pointer to a value until the graph is freed, and reading a string costs no
/// allocation until a Swift `String` is asked for.
///
/// This target holds the library's raw memory for the graph, so that the core stays safe Swift.
/// Every `Ref` is checked against the bytes written so far before it is followed: a `Ref` of
/// another arena reads as an empty string or as other bytes of this one, never as memory out of
/// bounds or not yet written.
public final class StringArena: @unchecked Sendable {
    /// Where one string lives: its chunk, its offset there and its length in bytes (without the NUL),
    /// in one word, since every row of a string column holds one: the chunk in the top 29 bits,
    /// then a bit set for a long string, then for a string in a shared chunk (shorter than 2^16
    /// bytes) its offset (18 bits: below `chunkSize`) and length (16), for a long one (a chunk of
    /// its own, offset 0) its length in all 34. Read without branches: every string read decodes
    /// one. 0 is the empty string.
    public struct Ref: Hashable, Sendable {
        public let bits: UInt64

        public init(bits: UInt64) { self.bits = bits }

        private static let longBit: UInt64 = 1 << 34

        /// `nil` when the parts do not fit (more chunks than the layout numbers).
        init?(chunk: Int, offset: Int, count: Int) {
            guard count > 0 else {
                bits = 0
                return
            }
            guard chunk >= 0, chunk < 1 << 29 else { return nil }
            if offset == 0, count >= 1 << 16 {
                guard count < 1 << 34 else { return nil }
                bits = UInt64(chunk) << 35 | Self.longBit | UInt64(count)
            } else {
                guard offset >= 0, offset < 1 << 18, count < 1 << 16 else { return nil }
                bits = UInt64(chunk) << 35 | UInt64(offset) << 16 | UInt64(count)
            }
        }

        /// All ones for a long string, else 0.
        @inline(__always) private var longMask: UInt64 { 0 &- ((bits >> 34) & 1) }

        @inline(__always) var chunk: Int { Int(truncatingIfNeeded: bits >> 35) }
        @inline(__always) var offset: Int { Int(truncatingIfNeeded: (bits >> 16) & 0x3_FFFF & ~longMask) }
        @inline(__always) public var count: Int {
            Int(truncatingIfNeeded: bits & (0xFFFF | (0x3_FFFF_0000 & longMask)))
        }

        /// The empty string, which every arena has without storing it.
        public static let empty = Ref(bits: 0)
    }

    private struct Chunk {
        let base: UnsafeMutableRawPointer
        let capacity: Int
    }

    // The arena's mutable fields have no run-time exclusivity checks (`@exclusivity(unchecked)`):
    // they cost more than the lookups they guard, and every access is a short method call under the
    // context's lock that never overlaps another. Marked here rather than with the compiler flag
    // `-enforce-exclusivity=unchecked`, which SwiftPM refuses in a package depended on by version;
    // the code generated is the same (these are the module's only variables a check would guard).
    @exclusivity(unchecked) private var chunks: [Chunk] = []
    /// The chunk new strings go to, and how much of it is used.
    @exclusivity(unchecked) private var current = -1
    @exclusivity(unchecked) private var used = 0
    /// Open addressing over `shared`: 0 is an empty slot; otherwise the low 32 bits n name
    /// `shared[n - 1]` and the high 32 bits are the top of that string's hash, so a probe passes
    /// other strings without reading them. A probe starts at those same bits (masked), so growing
    /// the table moves entries without hashing their strings again. Kept at most half full, so a
    /// probe ends soon. Both are
    /// raw buffers: as Swift arrays in a class, every probe paid for a retain, a uniqueness check and
    /// an exclusivity check.
    @exclusivity(unchecked) private var table = UnsafeMutableBufferPointer<UInt64>(start: nil, count: 0)
    @exclusivity(unchecked) private var shared = UnsafeMutableBufferPointer<Ref>(start: nil, count: 0)
    @exclusivity(unchecked) private var sharedCount = 0

    static let chunkSize = 1 << 18
    /// Strings up to this long are looked up before they are stored; longer ones (bodies, bios)
    /// rarely repeat and would cost a hash of every byte.
    static let sharedLimit = 64
    /// Seeds the hash per process from Swift's own random hash seed (as Swift's dictionaries are
    /// seeded), so that a payload cannot be built to make probe runs long; the table is kept at most
    /// half full. SWIFT_DETERMINISTIC_HASHING makes runs repeat, for instruction counts.
    private let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x6D61_7070 as UInt32)
        return UInt64(UInt(bitPattern: hasher.finalize()))
    }()
    private static let terminator: [UInt8] = [0]

    /// What `cString` answers for the empty string.
    private let emptyCString: UnsafeMutablePointer<CChar>

    public init() {
        emptyCString = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        emptyCString.initialize(to: 0)
    }

    deinit {
        for chunk in chunks { chunk.base.deallocate() }
        emptyCString.deallocate()
        table.deallocate()
        shared.deallocate()
    }

    // MARK: Storing

    /// Stores `string`, shared (or finds it stored); `nil` only for a string of 4 GiB or more.
    public func store(_ string: String) -> Ref? {
        var text = string
        var repeated = false
        return text.withUTF8 { store(UnsafeRawBufferPointer($0), share: true, repeated: &repeated) }
    }

    /// Stores the bytes; with `share`, a short string is looked up first and stored only once, and
    /// `repeated` says whether it was there already. Without, the bytes are simply appended (for
    /// values that rarely repeat, such as emails, looking them up would cost a table entry each).
    public func store(_ bytes: UnsafeRawBufferPointer, share: Bool, repeated: inout Bool) -> Ref? {
        repeated = false
        guard bytes.count > 0 else { return .empty }
        guard bytes.count < Int(UInt32.max) else { return nil }
        guard share, bytes.count <= Self.sharedLimit else { return append(bytes) }
        let hash = Self.hash(bytes, seed: seed)
        if table.isEmpty { resize(to: 1024) }
        let (found, probe) = find(bytes, hash: hash)
        if let found {
            repeated = true
            return found
        }
        guard let ref = append(bytes) else { return nil }
        // `shared` has room for as many entries as half the table, and the table is grown before
        // it is more than half full.
        shared[sharedCount] = ref
        sharedCount += 1
        table[probe] = Self.entry(hash: hash, index: sharedCount)
        if sharedCount * 2 >= table.count { resize(to: table.count * 2) }
        return ref
    }

    /// The arena's seeded hash of `bytes` (see `seed`): for tables that file strings by their bytes
    /// in the arena, such as identity maps.
    public func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 { Self.hash(bytes, seed: seed) }

    private func append(_ bytes: UnsafeRawBufferPointer) -> Ref? {
        let needed = bytes.count + 1
        if needed > Self.chunkSize / 4 {
            // A long string gets a chunk of its own (a `Ref` of a shared chunk holds lengths below
            // 2^16); the current chunk stays open.
            guard Ref(chunk: chunks.count, offset: 0, count: bytes.count) != nil else { return nil }
            let chunk = allocate(needed)
            write(bytes, to: chunk.base)
            chunks.append(chunk)
            return Ref(chunk: chunks.count - 1, offset: 0, count: bytes.count)
        }
        if current < 0 || chunks[current].capacity - used < needed {
            chunks.append(allocate(Self.chunkSize))
            current = chunks.count - 1
            used = 0
        }
        // A chunk too many for a `Ref` to number (2^29 of them: 128 TiB) is refused, not wrapped.
        guard let ref = Ref(chunk: current, offset: used, count: bytes.count) else { return nil }
        write(bytes, to: chunks[current].base + used)
        used += needed
        return ref
    }

    private func allocate(_ capacity: Int) -> Chunk {
        return Chunk(base: UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8), capacity: capacity)
    }

    private func write(_ bytes: UnsafeRawBufferPointer, to destination: UnsafeMutableRawPointer) {
        if let source = bytes.baseAddress { destination.copyMemory(from: source, byteCount: bytes.count) }
        destination.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
    }

    /// The shared string with these bytes, or the empty slot where it would go.
    @inline(__always)
    private func find(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> (found: Ref?, probe: Int) {
        let mask = table.count - 1
        let tag = hash >> 32
        var probe = Int(truncatingIfNeeded: tag) & mask
        while table[probe] != 0 {
            if table[probe] >> 32 == tag {
                let candidate = shared[Int(truncatingIfNeeded: table[probe] & 0xFFFF_FFFF) - 1]
                if candidate.count == bytes.count, equal(candidate, bytes) { return (candidate, probe) }
            }
            probe = (probe + 1) & mask
        }
        return (nil, probe)
    }

    private static func entry(hash: UInt64, index: Int) -> UInt64 {
        (hash >> 32) << 32 | UInt64(truncatingIfNeeded: index) & 0xFFFF_FFFF
    }

    /// A table of `count` slots (a power of two) holding every shared string, and room in `shared`
    /// for half as many entries.
    private func resize(to count: Int) {
        let larger = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: count)
        larger.initialize(repeating: 0)
        let mask = count - 1
        for entry in table where entry != 0 {
            var probe = Int(truncatingIfNeeded: entry >> 32) & mask
            while larger[probe] != 0 { probe = (probe + 1) & mask }
            larger[probe] = entry
        }
        table.deallocate()
        table = larger
        let room = UnsafeMutableBufferPointer<Ref>.allocate(capacity: count / 2)
        if let start = room.baseAddress, let old = shared.baseAddress {
            start.moveInitialize(from: old, count: sharedCount)
        }
        shared.deallocate()
        shared = room
    }

    // MARK: Reading

    /// The bytes of `ref`, without the NUL; empty for a `Ref` that lies outside what this arena wrote.
    public func withBytes<R>(_ ref: Ref, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let start = address(of: ref) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: start, count: ref.count))
    }

    /// The bytes of `ref` where they lie, without the NUL: they stay valid and unchanged as long as
    /// the arena (chunks never move, bytes once written never change). Empty (no address) for an
    /// empty string and a `Ref` that lies outside what this arena wrote.
    public func bytesInPlace(_ ref: Ref) -> UnsafeRawBufferPointer {
        guard let start = address(of: ref) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: ref.count)
    }

    public func string(_ ref: Ref) -> String {
        withBytes(ref) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `ref` holds exactly the UTF-8 bytes of `string`.
    public func equals(_ ref: Ref, _ string: String) -> Bool {
        var text = string
        return text.withUTF8 { other in
            ref.count == other.count && equal(ref, UnsafeRawBufferPointer(other))
        }
    }

    /// Whether `ref` holds exactly `bytes`.
    @inline(__always) public func equals(_ ref: Ref, _ bytes: UnsafeRawBufferPointer) -> Bool {
        ref.count == bytes.count && equal(ref, bytes)
    }

    /// The string as C reads it, NUL-terminated; stays valid as long as the arena. A `Ref` this
    /// arena did not make reads as "".
    public func cString(_ ref: Ref) -> UnsafePointer<CChar> {
        guard let start = address(of: ref) else { return UnsafePointer(emptyCString) }
        return UnsafePointer(start.assumingMemoryBound(to: CChar.self))
    }


    /// The start of `ref`'s bytes, after checking that they lie within one of this arena's chunks.
    @inline(__always) private func address(of ref: Ref) -> UnsafeMutableRawPointer? {
        guard ref.count > 0, ref.chunk < chunks.count else { return nil }
        let chunk = chunks[ref.chunk]
        // The open chunk is written up to `used`; the others are full (a long string's chunk is
        // exactly its bytes and NUL).
        let written = ref.chunk == current ? used : chunk.capacity
        guard ref.offset + ref.count < written else { return nil }
        return chunk.base + ref.offset
    }

    @inline(__always) private func equal(_ ref: Ref, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let start = address(of: ref) else { return bytes.isEmpty }
        guard let other = bytes.baseAddress, ref.count == bytes.count else { return false }
        return Bytes.equal(UnsafeRawBufferPointer(start: start, count: bytes.count), UnsafeRawBufferPointer(start: other, count: bytes.count))
    }

    /// A fast seeded hash, eight bytes at a time (not cryptographic; see `seed`).
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash: UInt64 = seed ^ UInt64(truncatingIfNeeded: bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = Bytes.mix(hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < bytes.count {
            // The rest in one or two loads rather than a loop per byte: with eight bytes or more,
            // the last eight (overlapping bytes already mixed: the length is in the seed); with four
            // to seven, the first four and the last four.
            var tail: UInt64 = 0
            if bytes.count >= 8 {
                tail = bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
            } else if bytes.count >= 4 {
                tail = UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
                    | UInt64(bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self)) << 32
            } else {
                var shift: UInt64 = 0
                while offset < bytes.count {
                    tail |= UInt64(bytes[offset]) << shift
                    shift += 8
                    offset += 1
                }
            }
            hash = Bytes.mix(hash ^ tail)
        }
        return hash ^ (hash >> 32)
    }

}
