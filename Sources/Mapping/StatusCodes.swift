import CMappingHeader
import MappingCore
import MappingEngine

/// The C status of each engine error: the header's own constant (`MappingError.Code.constant`).
extension MappingError.Code {
    var status: CInt { rawValue }
}

/// Exported to C as `mapping_error_name`: the header's name for the code, spelled from its
/// constant (`status_names.h`); "MAPPING_E?" for a code the header lacks.
@_cdecl("mapping_error_name")
public func mapping_error_name(_ code: CInt) -> UnsafePointer<CChar>? {
    mapping_status_name(mapping_status(rawValue: code))
}
