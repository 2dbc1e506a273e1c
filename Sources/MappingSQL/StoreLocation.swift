/// Which database a store's location names: a `postgresql://` or `postgres://` URI is a PostgreSQL
/// database (libpq's URI forms); anything else is an SQLite file's path.
package enum StoreLocation {
    package static func isPostgreSQL(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }
}
