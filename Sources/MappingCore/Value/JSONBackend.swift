/// The parser backends a payload can be read with. jansson is the default and always built;
/// simdjson is built when its development files are present (see Package.swift) and is several
/// times faster on large payloads. Both give the same graph for the same input, and both report
/// malformed JSON with jansson's line, column and message (simdjson hands a rejected text to
/// jansson to say where and why).
public enum JSONBackend: Int32, Sendable, CaseIterable {
    case jansson = 1
    case simdjson = 2

    public var name: String {
        switch self {
        case .jansson: "jansson"
        case .simdjson: "simdjson"
        }
    }
}
