/// Resolving a reference against a base URL (RFC 3986 §5.2), as `[NSURL URLWithString:relativeToURL:]`
/// does for RestKit's routes: `users/1` against `http://h/api/v1/` is `http://h/api/v1/users/1`,
/// `/users/1` is `http://h/users/1`, and `../x`, `./x` segments are removed.
public enum URLResolution {
    struct Parts {
        var scheme: String?
        var authority: String?
        var path: String
        var query: String?
        var fragment: String?
    }

    static func parse(_ text: String) -> Parts {
        var rest = Substring(text)
        var parts = Parts(path: "")
        if let hash = rest.firstIndex(of: "#") {
            parts.fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let mark = rest.firstIndex(of: "?") {
            parts.query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        if let colon = rest.firstIndex(of: ":"), let first = rest.first, first.isLetter,
           rest[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            parts.scheme = String(rest[..<colon])
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            parts.authority = String(rest[..<end])
            rest = rest[end...]
        }
        parts.path = String(rest)
        return parts
    }

    public static func resolve(_ reference: String, against base: String) -> String {
        let b = parse(base)
        let r = parse(reference)
        var target = Parts(path: "")
        if let scheme = r.scheme {
            target = Parts(scheme: scheme, authority: r.authority, path: removeDots(r.path), query: r.query)
        } else if r.authority != nil {
            target = Parts(scheme: b.scheme, authority: r.authority, path: removeDots(r.path), query: r.query)
        } else if r.path.isEmpty {
            target = Parts(scheme: b.scheme, authority: b.authority, path: b.path, query: r.query ?? b.query)
        } else if r.path.hasPrefix("/") {
            target = Parts(scheme: b.scheme, authority: b.authority, path: removeDots(r.path), query: r.query)
        } else {
            let merged: String
            if b.authority != nil && b.path.isEmpty {
                merged = "/" + r.path
            } else if let slash = b.path.lastIndex(of: "/") {
                merged = String(b.path[...slash]) + r.path
            } else {
                merged = r.path
            }
            target = Parts(scheme: b.scheme, authority: b.authority, path: removeDots(merged), query: r.query)
        }
        target.fragment = r.fragment
        var text = ""
        if let scheme = target.scheme { text += scheme + ":" }
        if let authority = target.authority { text += "//" + authority }
        text += target.path
        if let query = target.query { text += "?" + query }
        if let fragment = target.fragment { text += "#" + fragment }
        return text
    }

    /// RFC 3986 §5.2.4.
    static func removeDots(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        let absolute = input.hasPrefix("/")
        let trailing = input.hasSuffix("/") || input.hasSuffix("/.") || input.hasSuffix("/..") || input == "." || input == ".."
        for segment in input.split(separator: "/", omittingEmptySubsequences: false) where !(segment.isEmpty && output.isEmpty && absolute) {
            switch segment {
            case ".": continue
            case "..": if !output.isEmpty { output.removeLast() }
            default: output.append(segment)
            }
        }
        input = ""
        var result = (absolute ? "/" : "") + output.filter { !$0.isEmpty }.joined(separator: "/")
        if trailing && !result.hasSuffix("/") && !output.isEmpty { result += "/" }
        return result
    }
}
