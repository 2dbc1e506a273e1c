/// An attribute's value as a Swift type, `nil` when it holds another type: what a Swift caller
/// reads without a `switch` (`try context.value("login", of: user)?.stringValue`). Nothing is
/// converted: the spec's attribute type decides the case (a `json` attribute's value is `jsonValue`).
extension AttributeValue {
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    public var integerValue: Int64? {
        guard case .integer(let value) = self else { return nil }
        return value
    }

    public var doubleValue: Double? {
        guard case .double(let value) = self else { return nil }
        return value
    }

    public var decimalValue: ExactDecimal? {
        guard case .decimal(let value) = self else { return nil }
        return value
    }

    public var boolValue: Bool? {
        guard case .boolean(let value) = self else { return nil }
        return value
    }

    public var dateValue: Timestamp? {
        guard case .date(let value) = self else { return nil }
        return value
    }
}
