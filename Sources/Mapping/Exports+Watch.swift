import CMappingHeader
import MappingCore
import MappingEngine
import MappingLock

/// What a `const mapping_fetch_change *` stands for during a watch call.
final class FetchChangeHandle: Sendable {
    let change: FetchChange
    init(_ change: FetchChange) { self.change = change }

    func positions(_ kind: CInt) throws(MappingError) -> [Int] {
        switch kind {
        case CInt(MAPPING_POSITION_REMOVED.rawValue): change.removed
        case CInt(MAPPING_POSITION_INSERTED.rawValue): change.inserted
        case CInt(MAPPING_POSITION_UPDATED.rawValue): change.updated
        case CInt(MAPPING_POSITION_MOVED.rawValue): change.moved.map(\.to)
        default: throw MappingError(.misuse, "kind \(kind) is not a MAPPING_POSITION_* value")
        }
    }
}

/// A C watch function and its payload.
private struct CWatch: @unchecked Sendable {
    let function: mapping_watch_fn
    let payload: UnsafeMutableRawPointer?

    func call(_ change: FetchChange, contextPointer: OpaquePointer?) {
        let pointer = Registry.fetchChanges.add(FetchChangeHandle(change))
        function(contextPointer, pointer, payload)
        Registry.fetchChanges.remove(pointer)
    }
}

private func fetchChange(_ pointer: OpaquePointer?) throws(MappingError) -> FetchChangeHandle {
    guard let handle = Registry.fetchChanges.find(pointer) else {
        throw MappingError(.misuse, pointer == nil ? "the fetch change is NULL"
                           : "the fetch change is no longer valid (use it only during the watch call)")
    }
    return handle
}

/// Exported to C as `mapping_context_watch`.
@_cdecl("mapping_context_watch")
public func mapping_context_watch(_ context: OpaquePointer?, _ entity: UnsafePointer<CChar>?, _ predicate: UnsafePointer<CChar>?,
                                  _ arguments: UnsafePointer<CChar>?, _ sort: UnsafePointer<CChar>?, _ flags: CUnsignedInt,
                                  _ function: mapping_watch_fn?, _ payload: UnsafeMutableRawPointer?,
                                  _ out: UnsafeMutablePointer<UInt64>?) -> CInt {
    out?.pointee = 0
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let function else { throw MappingError(.misuse, "the watch function is NULL") }
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let request = FetchRequest(entity: try CString.argument(entity, "entity"),
                                   predicate: try CString.optional(predicate, "predicate"),
                                   arguments: try fetchArguments(arguments), sort: try CString.optional(sort, "sort"),
                                   includesSubentities: !isSet(MAPPING_FETCH_EXACT_ENTITY, in: flags))
        let watch = CWatch(function: function, payload: payload)
        let token = try handle.core.watch(request) { [weak handle] change in
            handle?.deliverLater { _, pointer in watch.call(change, contextPointer: pointer) }
        }
        out.pointee = UInt64(clamping: token)
    }
}

/// Exported to C as `mapping_fetch_change_results`.
@_cdecl("mapping_fetch_change_results")
public func mapping_fetch_change_results(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        let handle = try fetchChange(pointer)
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        out.pointee = Registry.lists.add(ListHandle(handle.change.results))
    }
}

/// Exported to C as `mapping_fetch_change_count`.
@_cdecl("mapping_fetch_change_count")
public func mapping_fetch_change_count(_ pointer: OpaquePointer?, _ kind: CInt, _ out: UnsafeMutablePointer<Int>?) -> CInt {
    out?.pointee = 0
    return withoutContext { () throws(MappingError) in try store(try fetchChange(pointer).positions(kind).count, into: out) }
}

/// Exported to C as `mapping_fetch_change_position`.
@_cdecl("mapping_fetch_change_position")
public func mapping_fetch_change_position(_ pointer: OpaquePointer?, _ kind: CInt, _ index: Int,
                                          _ out: UnsafeMutablePointer<Int>?, _ outFrom: UnsafeMutablePointer<Int>?) -> CInt {
    out?.pointee = 0
    outFrom?.pointee = 0
    return withoutContext { () throws(MappingError) in
        let handle = try fetchChange(pointer)
        let positions = try handle.positions(kind)
        let at = UInt(bitPattern: index)
        guard at < UInt(positions.count) else {
            throw MappingError(.range, "index \(at) is out of range: \(positions.count) position(s) of that kind")
        }
        try store(positions[Int(at)], into: out)
        if kind == CInt(MAPPING_POSITION_MOVED.rawValue), let outFrom { outFrom.pointee = handle.change.moved[Int(at)].from }
    }
}
