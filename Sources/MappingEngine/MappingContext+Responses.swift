import MappingCore
import MappingLock
import MappingJSON

extension MappingContext {
    /// Maps a response with every descriptor that matches it, as one all-or-nothing import. An error
    /// status fails with `MAPPING_ERESPONSE`, carrying the payload's error messages when an error
    /// descriptor matches. Returns the objects of all key paths in descriptor order.
    public func mapResponse<Reader: JSONReader>(_ response: HTTPResponse, root: Reader.Node?, reader: Reader,
                                                options given: ImportOptions = ImportOptions()) throws(MappingError) -> [ObjectID] {
        let matched = spec.descriptors(for: response)
        if response.status >= 400 {
            var messages: [String] = []
            for (descriptor, _) in matched {
                guard let key = descriptor.errorMessage, let root else { continue }
                let value = descriptor.keyPath.map { Self.value(at: $0, in: root, reader) } ?? root
                messages += Self.errorMessages(value, key: key, reader)
            }
            // Method and URL first: an error status is read in logs far from the request.
            let answer = "\(response.methodName) \(response.url) answered \(response.status)"
            throw MappingError(.response, messages.isEmpty ? answer : answer + ": " + messages.joined(separator: ", "))
        }
        let objectDescriptors = matched.filter { $0.0.mapping != nil }
        guard !objectDescriptors.isEmpty else {
            throw MappingError(.mapping, "no response descriptor matches \(response.url) (status \(response.status))")
        }
        guard let root else { return [] }
        var options = given
        options.addResponseMetadata(response, arguments: objectDescriptors.first?.1 ?? [:])
        options.keyPaths = objectDescriptors.map(\.0.keyPath)
        options.targetObject = response.target
        let names = objectDescriptors.compactMap { $0.0.mapping.map(spec.name(of:)) }
        return try importDocument(mappings: names, root: root, reader: reader, options: options)
    }

    private static func value<Reader: JSONReader>(at keyPath: String, in root: Reader.Node, _ reader: Reader) -> Reader.Node? {
        var current: Reader.Node? = root
        for name in keyPath.split(separator: ".").map(String.init) {
            current = current.flatMap { reader.member(of: $0, key: PlanKey(name)) }
        }
        return current
    }

    private static func errorMessages<Reader: JSONReader>(_ node: Reader.Node?, key: String, _ reader: Reader) -> [String] {
        guard let node else { return [] }
        switch reader.kind(of: node) {
        case .array:
            var messages: [String] = []
            reader.forEachElementQuietly(of: node) { messages += errorMessages($0, key: key, reader) }
            return messages
        case .string:
            return [reader.string(of: node)]
        case .object:
            guard let message = value(at: key, in: node, reader), reader.kind(of: message) == .string else { return [] }
            return [reader.string(of: message)]
        default:
            return []
        }
    }
}
