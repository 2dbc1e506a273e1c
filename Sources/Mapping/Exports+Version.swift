import MappingCore
import MappingEngine

/// Kept in step with MAPPING_VERSION_* in include/mapping.h (a test compares them).
enum Version {
    static let major: CInt = 0
    static let minor: CInt = 2
    static let patch: CInt = 0
    static let text: StaticString = "0.2.0"
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
