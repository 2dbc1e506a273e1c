/// Splits a large input into chunks of representations without parsing it, so that only one chunk's
/// parse tree exists at a time: the elements of a top-level JSON array (found by following strings
/// and nesting, not by parsing), or the non-blank lines of JSON Lines. Each chunk is the JSON text of
/// an array of up to `size` representations; `origin(of:)` maps a byte of a chunk back to the input,
/// so a parse error in a chunk is reported at its line and column in the whole input.
public struct ChunkSplitter {
    public enum Format: Sendable { case array, lines }

    public struct Chunk {
        /// `[` + the representations separated by `,` + `]`.
        public var text: [UInt8] = [0x5B]
        /// For each representation: where it starts in `text` and in the input.
        fileprivate var pieces: [(inChunk: Int, inInput: Int)] = []
        public var count: Int { pieces.count }

        /// The input offset of byte `offset` of `text` (the nearest representation's, for separators).
        public func origin(of offset: Int) -> Int {
            var best = pieces.first?.inInput ?? 0
            for piece in pieces where piece.inChunk <= offset { best = piece.inInput + (offset - piece.inChunk) }
            return best
        }
    }

    private let input: UnsafeRawBufferPointer
    private let format: Format
    private let size: Int
    private var cursor = 0
    private var opened = false
    private var finished = false

    public init(_ input: UnsafeRawBufferPointer, format: Format, size: Int) {
        self.input = input
        self.format = format
        self.size = max(1, size)
    }

    /// The next chunk, or `nil` at the end. Throws for input that is not an array (or has data after
    /// it); other malformations are left to the parser, which sees them in their chunk.
    public mutating func next() throws(MappingError) -> Chunk? {
        var chunk = Chunk()
        while chunk.count < size, let (start, end) = try nextPiece() {
            if chunk.count > 0 { chunk.text.append(0x2C) }
            chunk.pieces.append((chunk.text.count, start))
            chunk.text.append(contentsOf: input[start..<end])
        }
        guard chunk.count > 0 else { return nil }
        chunk.text.append(0x5D)
        return chunk
    }

    private mutating func nextPiece() throws(MappingError) -> (Int, Int)? {
        guard !finished else { return nil }
        switch format {
        case .lines: return nextLine()
        case .array: return try nextElement()
        }
    }

    private mutating func nextLine() -> (Int, Int)? {
        while cursor < input.count {
            let start = cursor
            while cursor < input.count, input[cursor] != 0x0A { cursor += 1 }
            let end = cursor
            cursor += 1
            if input[start..<end].contains(where: { !Self.isSpace($0) }) { return (start, end) }
        }
        finished = true
        return nil
    }

    private mutating func nextElement() throws(MappingError) -> (Int, Int)? {
        skipSpace()
        if !opened {
            guard cursor < input.count, input[cursor] == 0x5B else {
                throw Self.error("the input is not a JSON array", at: cursor, in: input)
            }
            opened = true
            cursor += 1
            skipSpace()
            if cursor < input.count, input[cursor] == 0x5D { return try close() }
        } else if cursor < input.count, input[cursor] == 0x2C {
            cursor += 1
            skipSpace()
        } else if cursor < input.count, input[cursor] == 0x5D {
            return try close()
        }
        guard cursor < input.count else {
            finished = true
            throw Self.error("the array is not closed", at: cursor, in: input)
        }
        let start = cursor
        var depth = 0
        var inString = false
        var escaped = false
        while cursor < input.count {
            let byte = input[cursor]
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            } else if byte == 0x22 {
                inString = true
            } else if byte == 0x5B || byte == 0x7B {
                depth += 1
            } else if byte == 0x5D || byte == 0x7D {
                if depth == 0 { break }
                depth -= 1
            } else if byte == 0x2C, depth == 0 {
                break
            }
            cursor += 1
        }
        var end = cursor
        while end > start, Self.isSpace(input[end - 1]) { end -= 1 }
        return (start, end)
    }

    /// At the closing bracket: only whitespace may follow.
    private mutating func close() throws(MappingError) -> (Int, Int)? {
        finished = true
        cursor += 1
        skipSpace()
        guard cursor >= input.count else { throw Self.error("data after the end of the array", at: cursor, in: input) }
        return nil
    }

    private mutating func skipSpace() {
        while cursor < input.count, Self.isSpace(input[cursor]) { cursor += 1 }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// A parse error at input byte `offset`, with its line and column (1-based, in bytes).
    public static func error(_ message: String, at offset: Int, in input: UnsafeRawBufferPointer) -> MappingError {
        let (line, column) = location(of: offset, in: input)
        return MappingError(.parse, "malformed JSON at line \(line), column \(column): \(message)",
                            line: line, column: column, position: offset)
    }

    public static func location(of offset: Int, in input: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for index in 0..<min(max(offset, 0), input.count) where input[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return (line, offset - lineStart + 1)
    }
}
