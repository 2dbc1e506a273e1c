/// Splits a large input into chunks of representations without parsing it, so that only one chunk's
/// parse tree exists at a time: the elements of a top-level JSON array (found by following strings
/// and nesting, not by parsing), or the non-blank lines of JSON Lines.
///
/// An array chunk is `[` + a stretch of the input copied as it is — elements *and* the separators and
/// spaces between them — + `]`. Whatever is malformed inside that stretch is therefore seen by the
/// parser exactly as in a plain import of the whole input, and `origin(of:)` maps the parser's
/// position back by a constant. What the stretch cannot show — a comma with no element after it, a
/// `}` where the array should go on, data after the array — the splitter finds itself and reports as
/// a `Problem`: a tiny text on which the parser gives the same error a plain import gives there (the
/// chunked import runs it), so both imports reject the same inputs at the same line and column. A
/// stretch cut by the end of the input gets no `]`: the parser then meets the end where a plain
/// import does.
public struct ChunkSplitter {
    public enum Format: Sendable { case array, lines }

    public struct Chunk {
        /// `[` + the representations (with what lies between them) + `]`.
        public var text: [UInt8] = [0x5B]
        /// Where runs of `text` start, in `text` and in the input (one run for an array chunk, one
        /// per line for JSON Lines).
        fileprivate var pieces: [(inChunk: Int, inInput: Int)] = []
        /// Elements seen (a malformed stretch may count differently; the parser then fails).
        public fileprivate(set) var count = 0
        /// A malformation found right after the chunk's text: report it once the text has parsed.
        public fileprivate(set) var problem: Problem?

        /// The input offset of byte `offset` of `text` (the nearest run's, for separators).
        public func origin(of offset: Int) -> Int {
            var best = pieces.first.map { $0.inInput - $0.inChunk } ?? 0
            for piece in pieces where piece.inChunk <= offset { best = piece.inInput + (offset - piece.inChunk) }
            return best
        }
    }

    /// A malformation at input offset `offset`: the parser's error for `probe` at its byte
    /// `probeOffset` is the error a plain import reports at `offset`.
    public struct Problem: Sendable {
        public let probe: [UInt8]
        public let probeOffset: Int
        public let offset: Int
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

    /// The next chunk, or `nil` at the end. Throws for input that is not an array; other
    /// malformations come back in the chunk (its text, or its `problem`).
    public mutating func next() throws(MappingError) -> Chunk? {
        guard !finished else { return nil }
        switch format {
        case .lines: return nextLines()
        case .array: return try nextElements()
        }
    }

    private mutating func nextLines() -> Chunk? {
        var chunk = Chunk()
        while chunk.count < size, let (start, end) = nextLine() {
            if chunk.count > 0 { chunk.text.append(0x2C) }
            chunk.pieces.append((chunk.text.count, start))
            chunk.text.append(contentsOf: input[start..<end])
            chunk.count += 1
        }
        guard chunk.count > 0 else { return nil }
        chunk.text.append(0x5D)
        return chunk
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

    /// Up to `size` elements from the cursor (just past the `[` or a `,`), as one stretch.
    private mutating func nextElements() throws(MappingError) -> Chunk? {
        let afterComma = opened
        if !opened {
            skipSpace()
            guard cursor < input.count, input[cursor] == 0x5B else {
                throw Self.error("the input is not a JSON array", at: cursor, in: input)
            }
            opened = true
            cursor += 1
        }
        let start = cursor
        var chunk = Chunk()
        chunk.pieces = [(1, start)]
        var depth = 0
        var inString = false
        var escaped = false
        var valueSinceSeparator = false  // a non-space byte since the stretch's start or its last comma
        var lastSeparator: Int?          // the stretch's last comma
        // Every pass advances the cursor by one byte, so no input can keep this loop going.
        while cursor < input.count {
            let byte = input[cursor]
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            } else if byte == 0x22 {
                inString = true
                valueSinceSeparator = true
            } else if byte == 0x5B || byte == 0x7B {
                depth += 1
                valueSinceSeparator = true
            } else if (byte == 0x5D || byte == 0x7D) && depth > 0 {
                depth -= 1
            } else if depth == 0 && (byte == 0x2C || byte == 0x5D || byte == 0x7D) {
                // A separator or terminator of the array itself.
                if !valueSinceSeparator {
                    let atArrayStart = chunk.count == 0 && !afterComma
                    if !(byte == 0x5D && atArrayStart) {
                        // No element where one must be (`[,`, `,,`, `,]`, `[}`): the parser's error
                        // for this byte where it expects a value.
                        let probe = Array((atArrayStart ? "[" : "[0,").utf8) + [byte]
                        return finish(chunk, start: start, end: lastSeparator ?? cursor,
                                      problem: Problem(probe: probe, probeOffset: probe.count - 1, offset: cursor))
                    }
                } else if byte == 0x7D {  // `}` where the array goes on
                    return finish(chunk, start: start, end: cursor,
                                  problem: Problem(probe: Array("[0".utf8) + [byte], probeOffset: 2, offset: cursor))
                }
                if valueSinceSeparator { chunk.count += 1 }
                if byte == 0x5D { return try close(chunk, start: start) }
                valueSinceSeparator = false
                lastSeparator = cursor
                if chunk.count == size {
                    let end = cursor
                    cursor += 1
                    chunk.text.append(contentsOf: input[start..<end])
                    chunk.text.append(0x5D)
                    // A trailing comma (`…, ]`) must fail before this chunk is mapped, as it fails a
                    // plain import's parse: look past the comma now.
                    chunk.problem = missingElement()
                    return chunk
                }
            } else if !Self.isSpace(byte) {
                valueSinceSeparator = true
            }
            cursor += 1
        }
        // The input ended inside the array: the stretch goes to the parser without a `]`, so it meets
        // the end of the input in the state a plain import meets it (expecting `]` or a value).
        finished = true
        if valueSinceSeparator { chunk.count += 1 }
        chunk.text.append(contentsOf: input[start..<input.count])
        return chunk
    }

    /// The stretch up to `end` (before a comma with no element after it, so that the parser sees
    /// the elements alone), with a problem found at the cursor.
    private mutating func finish(_ chunk: Chunk, start: Int, end: Int, problem: Problem) -> Chunk {
        var chunk = chunk
        finished = true
        chunk.text.append(contentsOf: input[start..<end])
        chunk.text.append(0x5D)
        chunk.problem = problem
        return chunk
    }

    /// With the cursor just past a comma: the problem if no element follows it (`]`, `,` or `}`
    /// next, or the end of the input); the cursor does not move.
    private func missingElement() -> Problem? {
        var index = cursor
        while index < input.count, Self.isSpace(input[index]) { index += 1 }
        guard index < input.count else { return Problem(probe: Array("[0,".utf8), probeOffset: 3, offset: input.count) }
        let byte = input[index]
        guard byte == 0x5D || byte == 0x2C || byte == 0x7D else { return nil }
        return Problem(probe: Array("[0,".utf8) + [byte], probeOffset: 3, offset: index)
    }

    /// At the array's closing bracket: the last stretch, and nothing but whitespace may follow.
    private mutating func close(_ chunk: Chunk, start: Int) throws(MappingError) -> Chunk? {
        var chunk = chunk
        finished = true
        chunk.text.append(contentsOf: input[start..<cursor])
        chunk.text.append(0x5D)
        cursor += 1
        skipSpace()
        if cursor < input.count {
            // The parser's words for what follows (`end of file expected near 'x'`), on all of it: a
            // token there may be of any length (an unterminated string ends at the end of input), and
            // a window of it put the end where the window ended (found by fuzzing).
            chunk.problem = Problem(probe: Array("[0]".utf8) + input[cursor...], probeOffset: 3, offset: cursor)
        }
        return chunk.count > 0 || chunk.problem != nil ? chunk : nil
    }

    private mutating func skipSpace() {
        while cursor < input.count, Self.isSpace(input[cursor]) { cursor += 1 }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// The parser's error `message` where its last byte read was input byte `lastByte`, reported as a
    /// plain import reports it: line and column of that byte (1-based), position its 0-based offset.
    public static func parserError(_ code: MappingError.Code, _ message: String, lastByte: Int,
                                   in input: UnsafeRawBufferPointer) -> MappingError {
        // Having read a newline, the parser is at the start of the next line.
        let afterNewline = input.indices.contains(lastByte) && input[lastByte] == 0x0A
        let (line, column) = location(of: max(afterNewline ? lastByte + 1 : lastByte, 0), in: input)
        let position = max(lastByte, 0)
        let what = code == .depth ? "JSON nested too deeply" : "malformed JSON"
        return MappingError(code, "\(what) at line \(line), column \(max(column, 1)): \(message)",
                            line: line, column: max(column, 1), position: position)
    }

    /// A parse error at input byte `offset`, with its line and column (1-based).
    public static func error(_ message: String, at offset: Int, in input: UnsafeRawBufferPointer) -> MappingError {
        let (line, column) = location(of: offset, in: input)
        return MappingError(.parse, "malformed JSON at line \(line), column \(column): \(message)",
                            line: line, column: column, position: offset)
    }

    /// Line and column of input byte `offset`, 1-based, columns counted in characters as jansson
    /// counts them (a UTF-8 continuation byte does not start a column; found by fuzzing).
    public static func location(of offset: Int, in input: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for index in 0..<min(max(offset, 0), input.count) {
            let byte = input[index]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        // A continuation byte sits in the column of the character it continues.
        if input.indices.contains(offset), input[offset] & 0xC0 == 0x80, column > 1 { column -= 1 }
        return (line, column)
    }
}
