import CMappingHeader
import MappingCore
import MappingEngine

/// The C status of each engine error, taken from the header's own `mapping_status` constants, so
/// the numbers C sees are the header's by construction. (The engine's `MappingError.Code` keeps
/// the same numbers as raw values for Swift callers; the ABI-consistency test compares the two.)
extension MappingError.Code {
    var status: CInt {
        let constant: mapping_status = switch self {
        case .failed: MAPPING_ERROR
        case .misuse: MAPPING_EMISUSE
        case .spec: MAPPING_ESPEC
        case .parse: MAPPING_EPARSE
        case .type: MAPPING_ETYPE
        case .name: MAPPING_ENAME
        case .notFound: MAPPING_ENOTFOUND
        case .stale: MAPPING_ESTALE
        case .null: MAPPING_ENULL
        case .depth: MAPPING_EDEPTH
        case .range: MAPPING_ERANGE
        case .mapping: MAPPING_EMAPPING
        case .denied: MAPPING_EDENIED
        case .predicate: MAPPING_EPREDICATE
        case .constraint: MAPPING_ECONSTRAINT
        case .response: MAPPING_ERESPONSE
        case .unavailable: MAPPING_EUNAVAILABLE
        case .busy: MAPPING_EBUSY
        case .store: MAPPING_ESTORE
        case .conflict: MAPPING_ECONFLICT
        case .memory: MAPPING_ENOMEM
        }
        return CInt(constant.rawValue)
    }
}

/// Exported to C as `mapping_error_name`.
@_cdecl("mapping_error_name")
public func mapping_error_name(_ code: CInt) -> UnsafePointer<CChar>? {
    let name: StaticString = switch code {
    case CInt(MAPPING_OK.rawValue): "MAPPING_OK"
    case MappingError.Code.failed.status: "MAPPING_ERROR"
    case MappingError.Code.misuse.status: "MAPPING_EMISUSE"
    case MappingError.Code.spec.status: "MAPPING_ESPEC"
    case MappingError.Code.parse.status: "MAPPING_EPARSE"
    case MappingError.Code.type.status: "MAPPING_ETYPE"
    case MappingError.Code.name.status: "MAPPING_ENAME"
    case MappingError.Code.notFound.status: "MAPPING_ENOTFOUND"
    case MappingError.Code.stale.status: "MAPPING_ESTALE"
    case MappingError.Code.null.status: "MAPPING_ENULL"
    case MappingError.Code.depth.status: "MAPPING_EDEPTH"
    case MappingError.Code.range.status: "MAPPING_ERANGE"
    case MappingError.Code.mapping.status: "MAPPING_EMAPPING"
    case MappingError.Code.denied.status: "MAPPING_EDENIED"
    case MappingError.Code.predicate.status: "MAPPING_EPREDICATE"
    case MappingError.Code.constraint.status: "MAPPING_ECONSTRAINT"
    case MappingError.Code.response.status: "MAPPING_ERESPONSE"
    case MappingError.Code.unavailable.status: "MAPPING_EUNAVAILABLE"
    case MappingError.Code.busy.status: "MAPPING_EBUSY"
    case MappingError.Code.store.status: "MAPPING_ESTORE"
    case MappingError.Code.conflict.status: "MAPPING_ECONFLICT"
    case MappingError.Code.memory.status: "MAPPING_ENOMEM"
    default: "MAPPING_E?"
    }
    return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}
