import MappingArena

/// What the serializer builds: JSON in which a `json` attribute's value stays the text it is kept as
/// until it is written (`JSONWriter.write(_:into:)` copies it whole). Parsing each such value into a
/// `JSONValue` only to write it again made serializing GitHub's events 45% slower than when the
/// graph kept trees. Callers that need a tree (form encoding, request bodies, the Swift API) ask
/// for `tree`.
package enum SerializedJSON {
    case value(JSONValue)
    case text(JSONText)
    case array([SerializedJSON])
    case object([(key: String, value: SerializedJSON)])

    package var tree: JSONValue {
        switch self {
        case .value(let value): value
        case .text(let text): text.value
        case .array(let elements): .array(elements.map(\.tree))
        case .object(let members): .object(members.map { JSONMember($0.key, $0.value.tree) })
        }
    }

    /// An array's elements, if this is one (as a tree or as text).
    var elements: [SerializedJSON]? {
        switch self {
        case .array(let elements): elements
        case .value(.array(let elements)): elements.map { .value($0) }
        case .text(let text): text.elements?.map { .text($0) }
        default: nil
        }
    }

    /// An object's members, if this is one (as a tree or as text).
    var members: [(key: String, value: SerializedJSON)]? {
        switch self {
        case .object(let members): members
        case .value(.object(let members)): members.map { ($0.key, .value($0.value)) }
        case .text(let text): text.members?.map { ($0.key, .text($0.value)) }
        default: nil
        }
    }
}

extension JSONWriter {
    /// The serializer's document as text: compact, with `json` values copied as they are kept; pretty
    /// text is written from the tree (a kept text is compact).
    package static func text(_ document: SerializedJSON, pretty: Bool) -> String {
        if pretty { return text(document.tree, pretty: true) }
        var output = ByteOutput()
        write(document, into: &output)
        return output.string
    }

    private static func write(_ document: SerializedJSON, into output: inout ByteOutput) {
        switch document {
        case .value(let value): write(value, into: &output, pretty: false, indent: 0)
        case .text(let text): output.append(text.text)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}
