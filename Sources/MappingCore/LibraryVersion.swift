import CMappingHeader

/// The library's version, from include/mapping.h (MAPPING_VERSION_STRING), for Swift programs and
/// the `mapping` tool's `--version`.
public enum LibraryVersion {
    public static let text: String = MAPPING_VERSION_STRING
}
