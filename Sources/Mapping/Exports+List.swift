import MappingCore
import MappingEngine

/// Exported to C as `mapping_list_new`.
@_cdecl("mapping_list_new")
public func mapping_list_new(_ objects: UnsafePointer<UInt64>?, _ count: Int,
                             _ out: UnsafeMutablePointer<OpaquePointer?>?) -> CInt {
    out?.pointee = nil
    return withoutContext { () throws(MappingError) in
        guard let out else { throw MappingError(.misuse, "the output pointer is NULL") }
        guard count >= 0 else { throw MappingError(.misuse, "the count is too large") }
        guard count == 0 || objects != nil else { throw MappingError(.misuse, "objects is NULL") }
        let handles = UnsafeBufferPointer(start: objects, count: count).map { ObjectID(raw: $0) }
        out.pointee = Registry.lists.add(ListHandle(handles))
    }
}

/// Exported to C as `mapping_list_count`.
@_cdecl("mapping_list_count")
public func mapping_list_count(_ list: OpaquePointer?) -> Int {
    Registry.lists.find(list)?.objects.count ?? 0
}

/// Exported to C as `mapping_list_at`.
@_cdecl("mapping_list_at")
public func mapping_list_at(_ list: OpaquePointer?, _ index: Int,
                             _ out: UnsafeMutablePointer<UInt64>?) -> CInt {
    out?.pointee = 0
    return withoutContext { () throws(MappingError) in
        let handle = try Registry.list(list)
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
    Registry.lists.remove(list)
}

/// Exported to C as `mapping_list_copy`.
@_cdecl("mapping_list_copy")
public func mapping_list_copy(_ list: OpaquePointer?, _ buffer: UnsafeMutablePointer<UInt64>?, _ capacity: Int,
                              _ count: UnsafeMutablePointer<Int>?) -> CInt {
    count?.pointee = 0
    return withoutContext { () throws(MappingError) in
        let handle = try Registry.list(list)
        guard capacity >= 0 else { throw MappingError(.misuse, "the capacity is too large") }
        guard capacity == 0 || buffer != nil else { throw MappingError(.misuse, "the buffer is NULL") }
        let objects = handle.objects
        if let buffer {
            let target = UnsafeMutableBufferPointer(start: buffer, count: min(capacity, objects.count))
            for (slot, object) in zip(target.indices, objects) { target[slot] = object.raw }
        }
        count?.pointee = objects.count
    }
}
