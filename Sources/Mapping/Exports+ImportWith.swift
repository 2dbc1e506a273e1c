import CMappingHeader
import MappingCore
import MappingEngine
import MappingJSON

/// C callbacks and their payloads, called from the engine's import as Swift closures.
private struct CImportCallbacks: @unchecked Sendable {
    let onEvent: mapping_event_fn?
    let eventPayload: UnsafeMutableRawPointer?
    let onProgress: mapping_progress_fn?
    let progressPayload: UnsafeMutableRawPointer?

    func event(_ event: ImportEvent) {
        guard let onEvent else { return }
        let (code, mapping, object, count): (CInt, String, UInt64, Int) = switch event {
        case .willMapCollection(let mapping, let count): (CInt(MAPPING_EVENT_WILL_MAP_COLLECTION.rawValue), mapping, 0, count)
        case .willMapObject(let mapping): (CInt(MAPPING_EVENT_WILL_MAP_OBJECT.rawValue), mapping, 0, 0)
        case .didMapObject(let mapping, let object): (CInt(MAPPING_EVENT_DID_MAP_OBJECT.rawValue), mapping, object.raw, 0)
        case .didMapCollection(let mapping, let count): (CInt(MAPPING_EVENT_DID_MAP_COLLECTION.rawValue), mapping, 0, count)
        }
        mapping.withCString { onEvent(code, $0, object, count, eventPayload) }
    }

    func progress(_ done: Int, _ known: Int) {
        onProgress?(done, known, progressPayload)
    }
}

/// A C caller's warning callback, given the audit's warnings before the import call returns.
private struct CWarnings {
    let onWarning: mapping_warning_fn
    let payload: UnsafeMutableRawPointer?

    func report(_ audit: ImportAudit) {
        for warning in audit.warnings {
            let kind = CInt(warning.kind.rawValue)
            warning.mapping.withCString { mapping in
                warning.element.withCString { element in
                    warning.place.withCString { place in
                        warning.message.withCString { message in onWarning(kind, mapping, element, place, warning.count, message, payload) }
                    }
                }
            }
        }
    }
}

/// Runs an import with the options a C caller gave (its struct read once), then reports the
/// audit's warnings to the caller's callback: after a strict import failed on them too.
private func withWarnings<T>(_ options: UnsafePointer<mapping_import_options>?,
                             _ body: (ImportOptions) throws(MappingError) -> T) throws(MappingError) -> T {
    let given = try options.map { (pointer) throws(MappingError) in try readImportOptions(pointer) }
    let resolved = try importOptions(given)
    let warnings = given.flatMap { given in
        given.on_warning.map { CWarnings(onWarning: $0, payload: given.warning_payload) }
    }
    let reportsAlways = isSet(MAPPING_CHECK_WARN, in: given?.checks ?? 0)
    do throws(MappingError) {
        let result = try body(resolved)
        if reportsAlways, let audit = resolved.audit { warnings?.report(audit) }
        return result
    } catch {
        if let audit = resolved.audit { warnings?.report(audit) }
        throw error
    }
}

/// Exported to C as `mapping_import_options_init`.
@_cdecl("mapping_import_options_init")
public func mapping_import_options_init(_ options: UnsafeMutablePointer<mapping_import_options>?,
                                        _ version: CUnsignedInt) -> CInt {
    initVersioned(options, version: version, sizes: importOptionsSizes, name: "mapping_import_options")
}

/// The bytes of each version of the import options: version 2 added `parser`, version 3 `checks`
/// and the warning callback.
private let importOptionsSizes = [MemoryLayout<mapping_import_options>.offset(of: \mapping_import_options.parser) ?? 0,
                                  MemoryLayout<mapping_import_options>.offset(of: \mapping_import_options.checks) ?? 0,
                                  MemoryLayout<mapping_import_options>.size]

private func readImportOptions(_ options: UnsafePointer<mapping_import_options>) throws(MappingError) -> mapping_import_options {
    try readVersioned(options, empty: mapping_import_options(), sizes: importOptionsSizes, name: "mapping_import_options")
}

/// The options a C caller gave, as the engine's `ImportOptions`.
private func importOptions(_ given: mapping_import_options?) throws(MappingError) -> ImportOptions {
    guard let given else { return ImportOptions() }
    var result = ImportOptions()
    let known = CUnsignedInt(MAPPING_CHECK_WARN.rawValue | MAPPING_CHECK_STRICT.rawValue | MAPPING_CHECK_OPTIONAL.rawValue)
    guard given.checks & ~known == 0 else {
        throw MappingError(.misuse, "unknown checks \(given.checks)")
    }
    result.strict = isSet(MAPPING_CHECK_STRICT, in: given.checks)
    if given.checks != 0 { result.audit = ImportAudit(warnsAboutOptional: isSet(MAPPING_CHECK_OPTIONAL, in: given.checks)) }
    result.parser = try parserChoice(given.parser)
    if let parser = result.parser { try ParsedPayload.check(parser) }
    if given.metadata != nil {
        let metadata = try JSONArgument.parse(given.metadata, length: given.metadata_len, "metadata")
        guard case .object = metadata else { throw MappingError(.misuse, "the metadata must be a JSON object") }
        result.metadata = metadata
    }
    let callbacks = CImportCallbacks(onEvent: given.on_event, eventPayload: given.event_payload,
                                     onProgress: given.on_progress, progressPayload: given.progress_payload)
    if given.on_event != nil { result.onEvent = { event in callbacks.event(event) } }
    if given.on_progress != nil { result.onProgress = { done, known in callbacks.progress(done, known) } }
    if given.progress_interval > 0 { result.progressInterval = Int(clamping: given.progress_interval) }
    if let entity = given.orphan_entity {
        result.orphanScope = (try CString.argument(entity, "orphan_entity"), try CString.optional(given.orphan_predicate, "orphan_predicate"))
    }
    return result
}

/// Exported to C as `mapping_context_import_with`.
@_cdecl("mapping_context_import_with")
public func mapping_context_import_with(_ context: OpaquePointer?, _ mappings: UnsafePointer<UnsafePointer<CChar>?>?,
                                _ mappingCount: Int, _ json: UnsafePointer<CChar>?, _ length: Int,
                                _ options: UnsafePointer<mapping_import_options>?,
                                _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let mappings, mappingCount > 0 else { throw MappingError(.misuse, "no mappings given") }
        var names: [String] = []
        for index in 0..<mappingCount {
            names.append(try CString.argument(mappings[index], "mappings[\(index)]"))
        }
        let bytes = try CString.buffer(json, length: UInt(bitPattern: length), "json")
        let objects = try withWarnings(options) { (resolved) throws(MappingError) in
            try handle.core.map(try handle.core.parsePayload(bytes, options: resolved), .importing(names, resolved))
        }
        if let out { out.pointee = Registry.lists.add(ListHandle(objects)) }
    }
}

/// Exported to C as `mapping_context_import_chunked`.
@_cdecl("mapping_context_import_chunked")
public func mapping_context_import_chunked(_ context: OpaquePointer?, _ mapping: UnsafePointer<CChar>?, _ data: UnsafePointer<CChar>?,
                                   _ length: Int, _ format: CInt, _ chunkSize: Int,
                                   _ options: UnsafePointer<mapping_import_options>?, _ count: UnsafeMutablePointer<Int>?) -> CInt {
    count?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        let name = try CString.argument(mapping, "mapping")
        let splitFormat: ChunkSplitter.Format
        switch format {
        case CInt(MAPPING_CHUNKS_ARRAY.rawValue): splitFormat = .array
        case CInt(MAPPING_CHUNKS_LINES.rawValue): splitFormat = .lines
        default: throw MappingError(.misuse, "format \(format) is neither MAPPING_CHUNKS_ARRAY nor MAPPING_CHUNKS_LINES")
        }
        guard chunkSize >= 0 else { throw MappingError(.misuse, "the chunk size is too large") }
        let bytes = try CString.buffer(data, length: UInt(bitPattern: length), "data")
        let mapped = try withWarnings(options) { (resolved) throws(MappingError) in
            try handle.core.importChunked(mapping: name, bytes, format: splitFormat,
                                          chunkSize: chunkSize == 0 ? 10_000 : chunkSize, options: resolved)
        }
        count?.pointee = mapped
    }
}
