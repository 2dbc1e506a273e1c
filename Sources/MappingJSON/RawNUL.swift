internal import Glibc
internal import MappingCore

/// JSON text never holds a NUL byte (inside a string it is spelled `\u0000`), but the parsers do not
/// refuse one everywhere: jansson's reader takes it for the end of the text, and simdjson ends a
/// number at it. So the text is searched for one first (memchr: a small cost beside parsing), and
/// one is a parse error at its own byte.
enum RawNUL {
    static func check(_ bytes: UnsafeRawBufferPointer) throws(MappingError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty, let found = memchr(base, 0, bytes.count) else { return }
        throw ChunkSplitter.error("a NUL byte, which JSON text cannot hold (inside a string, write it as \\u0000)",
                                  at: base.distance(to: UnsafeRawPointer(found)), in: bytes)
    }
}
