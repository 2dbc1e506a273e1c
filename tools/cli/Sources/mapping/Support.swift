import ArgumentParser
import Foundation
import MappingCore
import MappingEngine
import MappingJSON

/// An error the tool reports: the engine's message, then where (the JSON path and the attribute).
struct Failure: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) { description = message }

    init(_ error: MappingError, in file: String? = nil) {
        var text = error.message
        var places: [String] = []
        if let file { places.append(file + (error.line > 0 ? ":\(error.line):\(error.column)" : "")) }
        if !error.path.isEmpty { places.append("at \(error.path)") }
        if !error.attribute.isEmpty { places.append("attribute \(error.attribute)") }
        if !places.isEmpty { text += "\n  " + places.joined(separator: ", ") }
        description = text
    }
}

/// Runs engine calls, turning their errors into the tool's.
@discardableResult
func engine<T>(_ file: String? = nil, _ body: () throws(MappingError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw Failure(error, in: file)
    }
}

/// How messages name a store: a file by its path; a database server by nothing more, since its
/// URI may hold a password (the library's messages name the schema).
func storeLabel(_ location: String) -> String? {
    MappingContext.isServerLocation(location) ? nil : location
}

func readBytes(_ path: String) throws -> [UInt8] {
    if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
    guard let data = FileManager.default.contents(atPath: path) else { throw Failure("cannot read \(path)") }
    return Array(data)
}

func readText(_ path: String) throws -> String { String(decoding: try readBytes(path), as: UTF8.self) }

/// The spec at `path`, compiled, and its text.
func loadSpec(_ path: String) throws -> (spec: CompiledSpec, text: String) {
    let text = try readText(path)
    return (try engine(path) { () throws(MappingError) in try CompiledSpec.load(json: text) }, text)
}

/// A context on the store at `location` (an SQLite file or a `postgresql://` URI), opened with the
/// spec it recorded.
func openStore(_ location: String, readOnly: Bool = true) throws -> MappingContext {
    guard MappingContext.isServerLocation(location) || FileManager.default.fileExists(atPath: location) else {
        throw Failure("no store at \(location)")
    }
    return try engine(storeLabel(location)) { () throws(MappingError) -> MappingContext in
        try MappingContext.open(recordedAt: location, options: StoreOptions(create: false, readOnly: readOnly))
    }
}

/// Writes to standard error (progress, summaries that are not the command's output).
func printError(_ text: String, terminator: String = "\n") {
    FileHandle.standardError.write(Data((text + terminator).utf8))
}

extension AttributeValue {
    /// The value as a table cell: strings bare, everything else as JSON.
    var cell: String {
        switch self {
        case .string(let text): text
        case .date(let instant): instant.iso8601
        default: jsonValue.text()
        }
    }
}

/// Rows as a text table: a header, a rule, left-aligned columns.
func table(_ header: [String], _ rows: [[String]]) -> String {
    var widths = header.map(\.count)
    for row in rows {
        for (index, cell) in row.enumerated() where widths.indices.contains(index) {
            widths[index] = max(widths[index], cell.count)
        }
    }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { index, cell in
            index == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
        }.joined(separator: "  ")
    }
    return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(separator: "\n")
}

/// A parser name from the command line.
func parserChoice(named name: String?) throws -> JSONBackend? {
    guard let name else { return nil }
    guard let found = JSONBackend.allCases.first(where: { $0.name == name }) else {
        throw Failure("unknown parser \"\(name)\" (known: \(JSONBackend.allCases.map(\.name).joined(separator: ", ")))")
    }
    return found
}
