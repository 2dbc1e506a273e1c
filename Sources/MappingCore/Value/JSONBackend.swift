import CMappingHeader

/// The parser backends a payload can be read with. jansson is the default and always built;
/// simdjson is built when its development files are present (see Package.swift) and is several
/// times faster on large payloads. Both give the same graph for the same input, and both report
/// malformed JSON with jansson's line, column and message (simdjson hands a rejected text to
/// jansson to say where and why).
public enum JSONBackend: Sendable, CaseIterable, RawRepresentable {
    case jansson
    case simdjson

    /// The header's MAPPING_PARSER_* number for the parser.
    public var rawValue: Int32 {
        let constant: mapping_parser = switch self {
        case .jansson: MAPPING_PARSER_JANSSON
        case .simdjson: MAPPING_PARSER_SIMDJSON
        }
        return Int32(truncatingIfNeeded: constant.rawValue)
    }

    public init?(rawValue: Int32) {
        guard let parser = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = parser
    }

    public var name: String {
        switch self {
        case .jansson: "jansson"
        case .simdjson: "simdjson"
        }
    }
}
