import CMappingHeader
import MappingCore
import MappingEngine
import MappingJSON
import MappingLock

/// The `mapping_value *` a C transformer writes into: its JSON result or its error message.
final class TransformOutput: @unchecked Sendable {
    var json: [UInt8]?
    var error: String?
}

/// A C transformer and its payload, called from the engine as a Swift closure.
private struct CTransformer: @unchecked Sendable {
    let function: mapping_transformer_fn
    let payload: UnsafeMutableRawPointer?
    let name: String

    /// Hands `input` to the C function as JSON text and parses what it writes back.
    func call(_ input: JSONValue) throws(MappingError) -> JSONValue {
        let output = TransformOutput()
        let handle = Registry.outputs.add(output)
        defer { Registry.outputs.remove(handle) }
        let text = Array(input.text().utf8) + [0]
        let status = text.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                function(chars.baseAddress, chars.count - 1, handle, payload)
            }
        }
        guard status == 0 else {
            throw MappingError(.type, output.error ?? "transformer \"\(name)\" rejected the value")
        }
        guard let json = output.json else {
            throw MappingError(.type, "transformer \"\(name)\" returned no value (call mapping_value_set_json)")
        }
        return try JSONArgument.parse(json)
    }
}

/// Exported to C as `mapping_context_register_transformer`.
@_cdecl("mapping_context_register_transformer")
public func mapping_context_register_transformer(_ context: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                                         _ forward: mapping_transformer_fn?, _ reverse: mapping_transformer_fn?,
                                         _ payload: UnsafeMutableRawPointer?) -> CInt {
    withContext(context) { (handle, _) throws(MappingError) in
        let transformerName = try CString.argument(name, "name")
        guard let forward else { throw MappingError(.misuse, "the forward function is NULL") }
        let there = CTransformer(function: forward, payload: payload, name: transformerName)
        let back = reverse.map { CTransformer(function: $0, payload: payload, name: transformerName) }
        try handle.core.register(transformer: transformerName, hostTransformer(there, back))
    }
}

private func hostTransformer(_ forward: CTransformer, _ reverse: CTransformer?) -> HostTransformer {
    let there: @Sendable (JSONValue) throws(MappingError) -> JSONValue = { (value) throws(MappingError) in
        try forward.call(value)
    }
    guard let reverse else { return HostTransformer(forward: there) }
    let back: @Sendable (JSONValue) throws(MappingError) -> JSONValue = { (value) throws(MappingError) in
        try reverse.call(value)
    }
    return HostTransformer(forward: there, reverse: back)
}

/// Exported to C as `mapping_value_set_json`.
@_cdecl("mapping_value_set_json")
public func mapping_value_set_json(_ output: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ length: Int) -> CInt {
    withoutContext { () throws(MappingError) in
        guard let slot = Registry.outputs.find(output) else {
            throw MappingError(.misuse, "the mapping_value is NULL or no longer valid (use it only during the transformer call)")
        }
        let bytes = try CString.buffer(json, length: UInt(bitPattern: length), "json")
        _ = try JanssonDocument.parse(bytes)  // report bad JSON to the transformer, where it can act on it
        slot.json = Array(bytes)
    }
}

/// Exported to C as `mapping_value_set_error`.
@_cdecl("mapping_value_set_error")
public func mapping_value_set_error(_ output: OpaquePointer?, _ message: UnsafePointer<CChar>?) -> CInt {
    withoutContext { () throws(MappingError) in
        guard let slot = Registry.outputs.find(output) else {
            throw MappingError(.misuse, "the mapping_value is NULL or no longer valid (use it only during the transformer call)")
        }
        slot.error = try CString.argument(message, "message")
    }
}
