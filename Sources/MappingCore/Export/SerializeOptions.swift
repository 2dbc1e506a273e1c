/// How `serialize` writes objects out.
public struct SerializeOptions: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Write null attributes and empty to-one relationships as `null` instead of leaving them out.
    public static let includeNulls = SerializeOptions(rawValue: 1 << 0)
    /// Indent with two spaces and put each member on its own line.
    public static let pretty = SerializeOptions(rawValue: 1 << 1)
    /// Do not wrap the output in the mapping's `rootPath`.
    public static let omitRootPath = SerializeOptions(rawValue: 1 << 2)
    /// Write `application/x-www-form-urlencoded` text instead of JSON (see `FormEncoder`).
    public static let formEncoded = SerializeOptions(rawValue: 1 << 3)
}
