internal import Glibc
internal import MappingCore

/// JSON text never holds a NUL byte (inside a string it is spelled `\u0000`), but the parsers do not
/// refuse one everywhere: jansson's reader takes it for the end of the text, and simdjson ends a
/// number at it. So the text is searched for one first (memchr: a small cost beside parsing); one is
/// a parse error at its own byte unless the text before it is malformed already (see
/// `JanssonDocument.parse`, which reports whichever comes first).
enum RawNUL {
    /// The offset of the first NUL byte, if there is one.
    static func offset(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty, let found = memchr(base, 0, bytes.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    static func error(at offset: Int, in bytes: UnsafeRawBufferPointer) -> MappingError {
        ChunkSplitter.error("a NUL byte, which JSON text cannot hold (inside a string, write it as \\u0000)", at: offset, in: bytes)
    }
}
