import ArgumentParser
import MappingCore
import MappingEngine
import MappingJSON

/// `mapping explain SPEC MAPPING PAYLOAD`: maps a payload in memory and reports how it fit.
struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Report, per mapping, which key paths of a payload matched how often and which never did.",
        discussion: "Maps the payload in memory (nothing is stored) and lists representations that lacked their identification.")

    @Argument(help: "The spec (JSON).") var spec: String
    @Argument(help: "The payload (JSON; - for standard input).") var payload: String
    @OptionGroup var target: MappingTarget

    func run() throws {
        let (compiled, _) = try loadSpec(spec)
        let context = try engine(spec) { () throws(MappingError) in try MappingContext(spec: compiled) }
        let bytes = try readBytes(payload)
        var options = ImportOptions()
        let audit = ImportAudit()
        options.audit = audit
        do {
            _ = try bytes.withUnsafeBytes { buffer in try target.map(buffer, into: context, options: options, file: payload) }
        } catch let error as MappingError where [.parse, .depth, .memory].contains(error.code) {
            throw error  // nothing was read: there is nothing to explain
        } catch {
            // A payload that drifted far enough to fail is when the report matters most.
            print(explanation(audit))
            throw error
        }
        print(explanation(audit))
    }
}

/// The audit as `explain` prints it: a table per mapping, then what lacked identification.
func explanation(_ audit: ImportAudit) -> String {
    var sections: [String] = []
    let representations = audit.representations
    var byMapping: [String: [ImportAudit.KeyPathUse]] = [:]
    var order: [String] = []
    for use in audit.keyPaths {
        if byMapping[use.mapping] == nil { order.append(use.mapping) }
        byMapping[use.mapping, default: []].append(use)
    }
    for name in order {
        let uses = byMapping[name] ?? []
        let count = representations[name] ?? 0
        let rows = uses.map { use in
            [use.keyPath, use.element, "\(use.matches)/\(use.representations)", use.matches == 0 ? "never matched" : ""]
        }
        sections.append("mapping \"\(name)\": \(count) representation\(count == 1 ? "" : "s")\n"
            + table(["key path", "into", "matched", ""], rows).split(separator: "\n").map { "  " + $0.trimmingTrailingSpaces }.joined(separator: "\n"))
    }
    for missing in audit.missingIdentification {
        sections.append("mapping \"\(missing.mapping)\": \(missing.count) representation\(missing.count == 1 ? "" : "s") without "
            + "\(missing.identification.joined(separator: ", ")) (first at \(missing.firstPath))")
    }
    let unmatched = audit.warnings.filter { $0.kind == .unmatchedKeyPath }.count
    if audit.keyPaths.isEmpty {
        sections.append("nothing was mapped")
    } else {
        sections.append(unmatched == 0 ? "every key path matched" : "\(unmatched) key path\(unmatched == 1 ? "" : "s") never matched")
    }
    return sections.joined(separator: "\n\n")
}

extension Substring {
    var trimmingTrailingSpaces: String {
        var text = String(self)
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
