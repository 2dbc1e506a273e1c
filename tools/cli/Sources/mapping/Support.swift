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

/// Rows as a text table: a header, a rule, left-aligned columns. With a `width` (a terminal's),
/// cells longer than a column can afford end in `…` and the columns that do not fit are left out,
/// named in a last line.
func table(_ header: [String], _ rows: [[String]], width: Int? = nil) -> String {
    let cap = width.map { max(12, $0 / 3) } ?? Int.max
    let clip = { (cell: String) -> String in cell.count <= cap ? cell : String(cell.prefix(cap - 1)) + "…" }
    let rows = rows.map { $0.map(clip) }
    var widths = header.map(\.count)
    for row in rows {
        for (index, cell) in row.enumerated() where widths.indices.contains(index) {
            widths[index] = max(widths[index], cell.count)
        }
    }
    var shown = header.count
    if let width {
        var used = 0
        shown = 0
        for columnWidth in widths {
            let needed = used + (shown == 0 ? 0 : 2) + columnWidth
            guard needed <= width || shown == 0 else { break }
            used = needed
            shown += 1
        }
    }
    func line(_ cells: [String]) -> String {
        let kept = Array(cells.prefix(shown))
        return kept.enumerated().map { index, cell in
            index == kept.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[index] - cell.count))
        }.joined(separator: "  ")
    }
    var lines = [line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)
    if shown < header.count {
        lines.append("(\(header.count - shown) more columns: \(header.dropFirst(shown).prefix(8).joined(separator: ", "))"
                     + (header.count - shown > 8 ? ", …" : "") + "; choose with --columns, or --wide / --json for all)")
    }
    return lines.joined(separator: "\n")
}

/// The width of the terminal standard output writes to, or nil when it is not one (a pipe or a
/// file gets every column in full). COLUMNS, when set, wins.
func terminalWidth() -> Int? {
    guard isatty(1) != 0 else { return nil }
    if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
    var size = winsize()
    guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
}

/// A parser name from the command line.
func parserChoice(named name: String?) throws -> JSONBackend? {
    guard let name else { return nil }
    guard let found = JSONBackend.allCases.first(where: { $0.name == name }) else {
        throw Failure("unknown parser \"\(name)\" (known: \(JSONBackend.allCases.map(\.name).joined(separator: ", ")))")
    }
    return found
}
