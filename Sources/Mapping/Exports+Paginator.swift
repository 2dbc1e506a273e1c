import MappingCore
import MappingEngine
import MappingJSON
import MappingLock

/// What a `mapping_paginator *` stands for: a paginator, changed under its own lock.
final class PaginatorHandle: Sendable {
    let state: Locked<Paginator>
    init(_ paginator: Paginator) { state = Locked(paginator) }
}

extension Registry {
    static let paginators = HandleTable<PaginatorHandle>()
}

private func paginator(_ pointer: OpaquePointer?) throws(MappingError) -> PaginatorHandle {
    guard let handle = Registry.paginators.find(pointer) else {
        throw MappingError(.misuse, pointer == nil ? "the paginator is NULL" : "the paginator was freed or is not a mapping_paginator")
    }
    return handle
}

/// Exported to C as `mapping_paginator_new`.
@_cdecl("mapping_paginator_new")
public func mapping_paginator_new(_ context: OpaquePointer?, _ pattern: UnsafePointer<CChar>?, _ perPage: Int,
                                  _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withContext(context) { (handle, _) throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let size = Int(clamping: UInt(bitPattern: perPage))
        let created = Paginator(pattern: try PathPattern(try CString.argument(pattern, "pattern")),
                                keys: handle.core.spec.paginationKeys, perPage: size == 0 ? 25 : size)
        out.pointee = Registry.paginators.add(PaginatorHandle(created))
    }
}

/// Exported to C as `mapping_paginator_free`.
@_cdecl("mapping_paginator_free")
public func mapping_paginator_free(_ pointer: OpaquePointer?) {
    Registry.paginators.remove(pointer)
}

/// Exported to C as `mapping_paginator_path`.
@_cdecl("mapping_paginator_path")
public func mapping_paginator_path(_ pointer: OpaquePointer?, _ page: Int,
                                   _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        let handle = try paginator(pointer)
        let path = try handle.state.withLock { (state) throws(MappingError) in
            try state.path(forPage: Int(clamping: UInt(bitPattern: page)))
        }
        out.pointee = CString.copy(path.utf8)
    }
}

/// Exported to C as `mapping_paginator_update`.
@_cdecl("mapping_paginator_update")
public func mapping_paginator_update(_ pointer: OpaquePointer?, _ page: Int, _ body: UnsafePointer<CChar>?, _ length: Int) -> CInt {
    withoutContext { () throws(MappingError) in
        let handle = try paginator(pointer)
        let value = try JSONArgument.parse(body, length: length, "body")
        handle.state.withLock { $0.update(page: Int(clamping: UInt(bitPattern: page)), body: value) }
    }
}

/// Exported to C as `mapping_paginator_field`.
@_cdecl("mapping_paginator_field")
public func mapping_paginator_field(_ pointer: OpaquePointer?, _ field: UnsafePointer<CChar>?,
                                  _ out: UnsafeMutablePointer<CLongLong>?) -> CInt {
    out?.pointee = 0
    return withoutContext { () throws(MappingError) in
        let handle = try paginator(pointer)
        let name = try CString.argument(field, "field")
        let state = handle.state.withLock { $0 }
        let value: Int
        switch name {
        case "perPage": value = state.perPage
        case "currentPage": value = state.currentPage ?? -1
        case "pageCount": value = state.pageCount ?? -1
        case "objectCount": value = state.objectCount ?? -1
        case "offset": value = try state.offset()
        case "hasNextPage": value = try state.hasNextPage() ? 1 : 0
        case "hasPreviousPage": value = state.hasPreviousPage ? 1 : 0
        default: throw MappingError(.name, "unknown paginator field \"\(name)\"")
        }
        try store(CLongLong(value), into: out)
    }
}
