import MappingCore

extension MappingContext {
    /// One attribute's value, `nil` for null or never set: `value(of:attribute:)` without the
    /// declaration, for Swift callers (`try context.value("login", of: user)?.stringValue`).
    public func value(_ attribute: String, of object: ObjectID) throws(MappingError) -> AttributeValue? {
        try value(of: object, attribute: attribute).0
    }
}
