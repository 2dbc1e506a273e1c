import MappingCore

/// Which database a store's location names: a `postgresql://` or `postgres://` URI is a PostgreSQL
/// database (libpq's URI forms); anything else is an SQLite file's path, unless it looks like a URI
/// of another kind or a mistyped PostgreSQL one, which is refused rather than made a file of.
package enum StoreLocation {
    package static func isPostgreSQL(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// Throws `.store` for a location that reads as a URI but not a PostgreSQL one libpq takes:
    /// `postgres:/db` (one slash), `postgresql:db`, `PostgreSQL://…`, `mysql://…`, `sqlite:///x.db`.
    /// Taken as a path, each would open (or create) a file of that odd name beside the program.
    package static func check(_ location: String) throws(MappingError) {
        guard !isPostgreSQL(location) else { return }
        let scheme = location.prefix { $0 != ":" }
        // A URI's scheme (RFC 3986): a letter, then letters, digits, "+", "-" and ".".
        guard scheme.count < location.count, scheme.count <= 16, let first = scheme.unicodeScalars.first,
              first.isASCII, first.properties.isAlphabetic,
              scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil
                                                                 || "+-.".unicodeScalars.contains($0)) }) else { return }
        let rest = location.dropFirst(scheme.count + 1)
        let lowered = scheme.lowercased()
        if lowered.hasPrefix("postgres") || lowered == "pg" || lowered == "psql" {
            throw MappingError(.store, "\"\(location)\" is not a PostgreSQL URI libmapping recognizes: write it as "
                               + "postgresql://[user@]host[:port]/database (or postgres://…), two slashes after the colon, "
                               + "in lower case; a socket folder goes in ?host=/path")
        }
        // A single letter and a backslash or slash is a Windows drive; anything else with "://" is a URI.
        guard rest.hasPrefix("//") else { return }
        throw MappingError(.store, "\"\(location)\" is a \(scheme): URI: libmapping opens an SQLite store by its file's "
                           + "path (\"people.db\", \"/var/lib/app/people.db\") and a PostgreSQL one by a postgresql:// URI")
    }
}
