internal import CJansson
internal import CJanssonArena
public import MappingCore

/// A payload parsed by jansson. Owns the tree: it is released when the document is.
/// The importer reads it through `JanssonReader` without copying it.
public final class JanssonDocument {
    let root: UnsafeMutablePointer<json_t>
    /// The text's long number literals (jansson keeps doubles, not the digits written).
    let numbers: NumberLiterals
    private let tree: Tree

    private init(_ tree: Tree, numbers: NumberLiterals) {
        self.root = tree.root
        self.tree = tree
        self.numbers = numbers
    }

    deinit { tree.release() }

    /// A parsed tree and what holds its memory: an arena (`CJanssonArena`), freed whole, or (when
    /// jansson's allocation functions are someone else's) jansson's own allocations, released by
    /// dropping the root's reference. No node of the tree is ever released on its own.
    private struct Tree {
        let root: UnsafeMutablePointer<json_t>
        let arena: OpaquePointer?

        func release() {
            if let arena { cjansson_arena_free(arena) } else { cjansson_decref(root) }
        }
    }

    /// Parses UTF-8 JSON text. Any top-level value is accepted; a syntax error becomes a
    /// `MappingError` with code `.parse` and jansson's line, column and byte position.
    /// `bytes` must stay alive as long as the document is read: decimals are read from its digits.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(MappingError) -> JanssonDocument {
        try parse(bytes, numbers: NumberLiterals(text: bytes))
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, numbers: NumberLiterals) throws(MappingError) -> JanssonDocument {
        if let nul = RawNUL.offset(in: bytes) {
            // The earliest problem is reported: a malformation before the NUL is found by parsing the
            // text before it (which, short of one, just ends too soon).
            do {
                try load(UnsafeRawBufferPointer(rebasing: bytes[..<nul])).release()
            } catch where !error.endsTooSoon {
                throw error.problem
            } catch {}
            throw RawNUL.error(at: nul, in: bytes)
        }
        do {
            return JanssonDocument(try load(bytes), numbers: numbers)
        } catch {
            throw error.problem
        }
    }

    /// A failed parse: the error to report, and whether the text only ended too soon.
    private struct Failure: Error {
        let problem: MappingError
        let endsTooSoon: Bool
    }

    /// jansson's tree of `bytes`, the caller's to release.
    private static func load(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Tree {
        var error = json_error_t()
        var arena: OpaquePointer?
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        let empty: [CChar] = [0]
        let parsed: UnsafeMutablePointer<json_t>? = empty.withUnsafeBufferPointer { fallback in
            cjansson_arena_loadb(base ?? fallback.baseAddress, bytes.count, cjansson_decode_flags(), &error, &arena)
        }
        guard let parsed else {
            let text = withUnsafePointer(to: &error) { String(cString: cjansson_error_text($0)) }
            let line = max(Int(error.line), 1)
            let column = max(Int(error.column), 1)  // jansson says 0 for an error at the first byte
            // jansson counts the bytes it read, the last one included: the position reported is
            // that byte's 0-based offset.
            let position = max(Int(error.position) - 1, 0)
            // jansson sets no error at all when an allocation fails while it builds a value.
            if text.isEmpty || withUnsafePointer(to: &error, { cjansson_error_is_memory($0) }) != 0 {
                throw Failure(problem: MappingError(.memory, "memory ran out parsing \(bytes.count) bytes of JSON with jansson, which "
                                                    + "needs several times the text of typical payloads but up to 90 times for small nested "
                                                    + "arrays and objects: use the simdjson parser (about a quarter of that), a chunked "
                                                    + "import, or a maximum input size"), endsTooSoon: false)
            }
            if withUnsafePointer(to: &error, { cjansson_error_is_depth($0) }) != 0 {
                throw Failure(problem: MappingError(.depth, "JSON nested too deeply at line \(line), column \(column): \(text)",
                                                    line: line, column: column, position: position), endsTooSoon: false)
            }
            throw Failure(problem: MappingError(.parse, "malformed JSON at line \(line), column \(column): \(text)",
                                                line: line, column: column, position: position),
                          endsTooSoon: withUnsafePointer(to: &error, { cjansson_error_ends_too_soon($0) }) != 0)
        }
        return Tree(root: parsed, arena: arena)
    }

    /// For text whose buffer is gone once this returns: its long numbers are found now.
    public static func parse(_ bytes: [UInt8]) throws(MappingError) -> JanssonDocument {
        try withBytes(of: bytes) { (buffer) throws(MappingError) in try parse(buffer, numbers: NumberLiterals(scanningNow: buffer)) }
    }

    public static func parse(_ text: String) throws(MappingError) -> JanssonDocument {
        try parse(Array(text.utf8))
    }

    /// The document as a Swift `JSONValue` (for small documents such as specs), at most
    /// `depthLimit` levels deep.
    public func value(depthLimit: Int = 256) throws(MappingError) -> JSONValue {
        try JanssonReader(numbers: numbers).copyValue(of: root, depthLimit: depthLimit)
    }

    /// The document's canonical text (`JSONText`), written straight from jansson's tree (no
    /// `JSONValue` made), at most `depthLimit` levels deep.
    public func text(depthLimit: Int = 256) throws(MappingError) -> JSONText {
        try JanssonReader(numbers: numbers).jsonText(of: root, depthLimit: depthLimit)
    }
}
