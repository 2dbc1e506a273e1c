import MappingCore
import MappingSQL

extension Statement: StoredRows {
    func finish() { reset() }
}

extension SQLiteStore {
    /// Every object in the file (`StoreLayout.load` says how it is read back).
    func load() throws(MappingError) -> [StoredObject] {
        try layout.load { (sql) throws(MappingError) in try connection.statement(sql) }
    }
}
