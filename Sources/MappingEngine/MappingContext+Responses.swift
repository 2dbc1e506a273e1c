import MappingCore
import MappingLock
import MappingJSON

extension MappingContext {
    /// Maps a response with every descriptor that matches it, as one all-or-nothing import. An error
    /// status fails with `MAPPING_ERESPONSE`, carrying the payload's error messages when an error
    /// descriptor matches. Returns the objects of all key paths in descriptor order.
    public func mapResponse<Reader: JSONReader>(_ response: HTTPResponse, root: Reader.Node?, reader: Reader,
                                                options given: ImportOptions = ImportOptions()) throws(MappingError) -> [ObjectID] {
        guard let plan = try responseImport(response, hasBody: root != nil, options: given, messages: { wanted in
            root.map { Self.errorMessages(wanted, in: $0, reader) } ?? []
        }), let root else { return [] }
        return try importDocument(mappings: plan.mappings, root: root, reader: reader, options: plan.options)
    }

    /// The error message keys an error status's matched descriptors name: where in the payload
    /// (a key path, or its root) and the key of the message in each object there.
    typealias WantedMessages = [(keyPath: String?, key: String)]

    /// What a response is mapped with: the mappings of the descriptors that match it and the
    /// options (response metadata, their key paths, the target object); nil without a body. An
    /// error status fails with `MAPPING_ERESPONSE` and the messages `messages` reads from the payload.
    func responseImport(_ response: HTTPResponse, hasBody: Bool, options given: ImportOptions,
                        messages: (WantedMessages) -> [String]) throws(MappingError) -> (mappings: [String], options: ImportOptions)? {
        let matched = spec.descriptors(for: response)
        if response.status >= 400 {
            let found = hasBody ? messages(matched.compactMap { descriptor, _ in descriptor.errorMessage.map { (descriptor.keyPath, $0) } }) : []
            // Method and URL first: an error status is read in logs far from the request.
            let answer = "\(response.methodName) \(response.url) answered \(response.status)"
            throw MappingError(.response, found.isEmpty ? answer : answer + ": " + found.joined(separator: ", "))
        }
        let objectDescriptors = matched.filter { $0.0.mapping != nil }
        guard !objectDescriptors.isEmpty else {
            throw MappingError(.mapping, "no response descriptor matches \(response.url) (status \(response.status))")
        }
        guard hasBody else { return nil }
        var options = given
        options.addResponseMetadata(response, arguments: objectDescriptors.first?.1 ?? [:])
        options.keyPaths = objectDescriptors.map(\.0.keyPath)
        options.targetObject = response.target
        return (objectDescriptors.compactMap { $0.0.mapping.map(spec.name(of:)) }, options)
    }

    /// The messages an error payload holds where `wanted` says.
    fileprivate static func errorMessages<Reader: JSONReader>(_ wanted: WantedMessages, in root: Reader.Node,
                                                              _ reader: Reader) -> [String] {
        var messages: [String] = []
        for (keyPath, key) in wanted {
            let value = keyPath.map { Self.value(at: $0, in: root, reader) } ?? root
            messages += Self.errorMessages(value, key: key, reader)
        }
        return messages
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

/// Reads an error payload's messages through whichever parser read it (a rare path: not specialized).
struct ErrorMessages: PayloadConsumer {
    typealias Result = [String]
    let wanted: MappingContext.WantedMessages

    func consume<Reader: JSONReader>(root: Reader.Node, reader: Reader) throws(MappingError) -> [String] {
        MappingContext.errorMessages(wanted, in: root, reader)
    }
}
