import MappingArena

/// A payload's subtree written as JSON text straight from the parser's document: the bytes
/// `JSONWriter` writes for the tree `copyValue(of:)` would build, without building it (a `json`
/// attribute of a GitHub event is an object of dozens of members: a tree is an allocation for each).
extension JSONWriter {
    package static func write<R: JSONReader>(_ node: R.Node, of reader: R, depthLimit: Int,
                                     into output: inout ByteOutput) throws(MappingError) {
        guard depthLimit > 0 else {
            throw MappingError(.depth, "JSON value nested too deeply to store")
        }
        switch reader.kind(of: node) {
        case .null: output.append("null")
        case .true: output.append("true")
        case .false: output.append("false")
        case .integer: writeInteger(reader.integer(of: node), into: &output)
        case .real:
            // A number the double would round keeps its digits as a decimal.
            if let written = try reader.recoveredDecimal(of: node) {
                writeDecimal(written, into: &output)
            } else {
                writeReal(reader.real(of: node), into: &output)
            }
        case .string:
            reader.withStringBytes(of: node) { writeString(bytes: $0.bindMemory(to: UInt8.self), into: &output) }
        case .array:
            output.append(UInt8(ascii: "["))
            try reader.forEachElement(of: node) { (index, element) throws(MappingError) in
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try reader.writeJSON(of: element, depthLimit: depthLimit - 1, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object:
            output.append(UInt8(ascii: "{"))
            var first = true
            try reader.forEachMemberKey(of: node) { (key, value) throws(MappingError) in
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                writeString(bytes: key.bindMemory(to: UInt8.self), into: &output)
                output.append(UInt8(ascii: ":"))
                try reader.writeJSON(of: value, depthLimit: depthLimit - 1, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}

extension JSONReader {
    public func writeJSON(of node: Node, depthLimit: Int, into output: inout ByteOutput) throws(MappingError) {
        try JSONWriter.write(node, of: self, depthLimit: depthLimit, into: &output)
    }

    /// The subtree at `node` as a `json` attribute's value, at most `depthLimit` levels deep.
    public func jsonText(of node: Node, depthLimit: Int) throws(MappingError) -> JSONText {
        var output = ByteOutput(capacity: 512)  // most values fit: no regrowth
        try writeJSON(of: node, depthLimit: depthLimit, into: &output)
        return JSONText(canonical: output.string)
    }
}
