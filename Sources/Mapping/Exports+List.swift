import MappingCore

/// Exported to C as `mapping_list_count`.
@_cdecl("mapping_list_count")
public func mapping_list_count(_ list: OpaquePointer?) -> Int {
    Registry.list(list)?.objects.count ?? 0
}

/// Exported to C as `mapping_list_get`.
@_cdecl("mapping_list_get")
public func mapping_list_get(_ list: OpaquePointer?, _ index: Int,
                             _ out: UnsafeMutablePointer<UInt64>?) -> CInt {
    out?.pointee = 0
    return withoutContext { () throws(MappingError) in
        guard let handle = Registry.list(list) else {
            throw MappingError(.misuse, list == nil ? "the list is NULL" : "the list was freed or is not a mapping_list")
        }
        let position = UInt(bitPattern: index)
        guard position < UInt(handle.objects.count) else {
            throw MappingError(.range, "index \(position) is out of range for a list of \(handle.objects.count)")
        }
        try store(handle.objects[Int(position)].raw, into: out)
    }
}

/// Exported to C as `mapping_list_free`.
@_cdecl("mapping_list_free")
public func mapping_list_free(_ list: OpaquePointer?) {
    Registry.removeList(list)
}
