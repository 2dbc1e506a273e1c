import MappingCore

/// Kept in step with MAPPING_VERSION_* in include/mapping.h (a test compares them).
enum Version {
    static let major: CInt = 0
    static let minor: CInt = 1
    static let patch: CInt = 0
    static let text: StaticString = "0.1.0"
}

/// Exported to C as `mapping_version`.
@_cdecl("mapping_version")
public func mapping_version() -> UnsafePointer<CChar>? {
    UnsafeRawPointer(Version.text.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Exported to C as `mapping_version_number`.
@_cdecl("mapping_version_number")
public func mapping_version_number() -> CInt {
    Version.major * 10_000 + Version.minor * 100 + Version.patch
}

/// Exported to C as `mapping_strerror`.
@_cdecl("mapping_strerror")
public func mapping_strerror(_ code: CInt) -> UnsafePointer<CChar>? {
    let name: StaticString = switch code {
    case 0: "MAPPING_OK"
    case -1: "MAPPING_ERROR"
    case -2: "MAPPING_EMISUSE"
    case -3: "MAPPING_ESPEC"
    case -4: "MAPPING_EPARSE"
    case -5: "MAPPING_ETYPE"
    case -6: "MAPPING_ENAME"
    case -7: "MAPPING_ENOTFOUND"
    case -8: "MAPPING_ESTALE"
    case -9: "MAPPING_ENULL"
    case -10: "MAPPING_EDEPTH"
    case -11: "MAPPING_ERANGE"
    case -12: "MAPPING_EMAPPING"
    case -13: "MAPPING_EDENIED"
    case -14: "MAPPING_EPREDICATE"
    case -15: "MAPPING_ECONSTRAINT"
    case -16: "MAPPING_ERESPONSE"
    case -17: "MAPPING_EUNAVAILABLE"
    case -18: "MAPPING_EBUSY"
    default: "MAPPING_E?"
    }
    return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}
