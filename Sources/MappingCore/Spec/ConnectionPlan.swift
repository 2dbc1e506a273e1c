/// A relationship a mapping fills by looking objects up instead of reading them from the payload
/// (RestKit's RKConnectionDescription), run once the whole payload is mapped.
public struct ConnectionPlan: Sendable {
    public enum Source: Sendable {
        /// Pairs of (source attribute, destination attribute): a destination matches when every
        /// pair matches (AND); a source value that is an array matches any of its elements (OR); a
        /// null source value matches a null destination value.
        case attributes([(source: Int, destination: Int)])
        /// A path of relationship indexes from the source object, each step from the entity the
        /// previous one reaches; to-many steps are flattened.
        case keyPath([(entity: Int, relationship: Int)])
    }

    public let relationship: Int
    public let source: Source
    /// Also match objects of the destination's sub-entities (RestKit's default).
    public let includesSubentities: Bool
    /// When every source value is null, clear the relationship (RestKit leaves it as it is).
    public let nullifyWhenSourceNil: Bool
    /// When nothing matches a single-attribute connection on the destination's identification,
    /// create the destination object (RestKit never does).
    public let createMissing: Bool
    /// Connect only source objects that match; others keep their relationship as it is.
    let sourcePredicate: CompiledPredicate?
    /// Only destination objects that match are connected.
    let destinationPredicate: CompiledPredicate?
}
