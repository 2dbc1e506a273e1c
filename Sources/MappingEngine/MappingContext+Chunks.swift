public import MappingCore
import MappingLock
import MappingJSON

extension MappingContext {
    /// Imports a large JSON array or JSON Lines input chunk by chunk, so that only one chunk's parse
    /// tree is in memory at a time (the input itself stays the caller's). Each representation is
    /// mapped with `mapping` as if it stood at the root (the mapping's `rootPath` does not apply).
    /// All or nothing: the chunks run inside one transaction — the calling thread's if it has one
    /// open, otherwise one opened and committed here. Parse errors give the line and column in the whole input.
    /// Progress callbacks count across chunks. Returns how many representations were mapped.
    public func importChunked(mapping: String, _ input: UnsafeRawBufferPointer, format: ChunkSplitter.Format,
                              chunkSize: Int, options: ImportOptions = ImportOptions()) throws(MappingError) -> Int {
        try checkMapping(mapping)  // an empty input must not hide a wrong name, nor a missing parser
        try checkInput(input)
        try ParsedPayload.check(options.parser ?? parser)
        // The chunks are one transaction of this thread (its own, if it has one open): other threads
        // wait for the whole import, so they never see it half done nor end it.
        let ownsTransaction = try beginUnlessOpen()
        var mappedAChunk = false
        do {
            let total = try importChunks(mapping: mapping, input, format: format, chunkSize: chunkSize, options: options,
                                         mappedAChunk: &mappedAChunk)
            if ownsTransaction { try commit() }
            return total
        } catch {
            if ownsTransaction { try? rollback() }
            // In the caller's transaction, chunks mapped before a later chunk failed to parse are part
            // of this call, which fails whole: the transaction is rolled back, as for any failing
            // call that changed the graph (a failure while mapping has rolled it back already).
            if !ownsTransaction, mappedAChunk, hasTransactionOnCallingThread { try fail(with: error) }
            throw error
        }
    }

    private func importChunks(mapping: String, _ input: UnsafeRawBufferPointer, format: ChunkSplitter.Format,
                              chunkSize: Int, options: ImportOptions, mappedAChunk: inout Bool) throws(MappingError) -> Int {
        var splitter = ChunkSplitter(input, format: format, size: chunkSize)
        var total = 0
        let counted = ProgressSoFar()
        // A key path is unmatched only if no chunk matched it: the chunks count into an audit of
        // their own, on which a strict import is judged once every chunk is mapped (still inside
        // the transaction); the caller's audit gets the counts then.
        let audit = options.audit != nil || options.strict ? ImportAudit(warnsAboutOptional: options.audit?.warnsAboutOptional ?? false) : nil
        while let chunk = try splitter.next() {
            var chunkOptions = options
            chunkOptions.mapsAtRoot = true
            chunkOptions.audit = audit
            chunkOptions.strict = false
            if let onProgress = options.onProgress {
                let (doneBefore, knownBefore) = (counted.done, counted.known)
                chunkOptions.onProgress = { done, known in
                    counted.done = doneBefore + done
                    counted.known = knownBefore + known
                    onProgress(counted.done, counted.known)
                }
            }
            // Parsed and imported while the chunk's bytes are alive: decimals are read from its digits.
            total += try withBytes(of: chunk.text) { (text) throws(MappingError) -> Int in
                let document: ParsedPayload
                do throws(MappingError) {
                    document = try parsePayload(text, options: options)
                } catch where error.code == .parse || error.code == .depth {
                    // Where the parser stopped, in the whole input, as a plain import reports it.
                    let lastByte = chunk.origin(of: error.position)
                    if format == .lines, error.code == .depth, let alone = Self.lineError(around: lastByte, in: input) { throw alone }
                    throw ChunkSplitter.parserError(error.code, Self.reason(error.message), lastByte: lastByte, in: input)
                }
                // The stretch parsed; a malformation just after it comes before any of its mapping.
                if let problem = chunk.problem { throw Self.error(of: problem, in: input) }
                mappedAChunk = true
                return try map(document, .importing([mapping], chunkOptions)).count
            }
        }
        if let audit { options.audit?.add(audit) }
        if options.strict {
            do throws(MappingError) {
                try audit?.failIfWarned()
            } catch {
                try fail(with: error)  // every chunk undone, also inside the caller's transaction
            }
        }
        return total
    }

    /// The error a plain import reports for the splitter's problem: the parser's on the probe text,
    /// moved to the problem's place in the input.
    private static func error(of problem: ChunkSplitter.Problem, in input: UnsafeRawBufferPointer) -> MappingError {
        do {
            _ = try JanssonDocument.parse(problem.probe)
        } catch {
            let lastByte = problem.offset + (error.position - problem.probeOffset)
            return ChunkSplitter.parserError(error.code, reason(error.message), lastByte: lastByte, in: input)
        }
        return ChunkSplitter.error("malformed array", at: problem.offset, in: input)
    }

    /// A JSON Lines chunk is parsed as one array of its lines, one level deeper than each line: a
    /// line nested to the parser's limit fails one level sooner there. Its own parse, alone, says
    /// where a plain import of that line stops (nil if alone it parses).
    private static func lineError(around byte: Int, in input: UnsafeRawBufferPointer) -> MappingError? {
        guard input.indices.contains(byte) else { return nil }
        var start = byte, end = byte
        while start > 0, input[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        while end < input.count, input[end] != UInt8(ascii: "\n") { end += 1 }
        do {
            _ = try JanssonDocument.parse(UnsafeRawBufferPointer(rebasing: input[start..<end]))
            return nil
        } catch {
            return ChunkSplitter.parserError(error.code, reason(error.message), lastByte: start + error.position, in: input)
        }
    }

    /// jansson's own words, without the location our message adds again.
    private static func reason(_ message: String) -> String {
        guard let colon = message.firstRange(of: ": ") else { return message }
        return String(message[colon.upperBound...])
    }
}

/// The progress reported by the chunks before the current one. Only touched on the importing
/// thread, during the call (progress callbacks run synchronously), hence unchecked.
private final class ProgressSoFar: @unchecked Sendable {
    var done = 0
    var known = 0
}
