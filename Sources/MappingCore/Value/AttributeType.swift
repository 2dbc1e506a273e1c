/// The declared type of an attribute; incoming values are coerced to it.
public enum AttributeType: String, Sendable, CaseIterable {
    case string, integer, double, decimal, boolean, date, json
}
