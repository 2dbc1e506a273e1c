/// The assignment policies as small pure functions of the relationship's current targets and the
/// incoming ones (FastEasyMapping's semantics); the importer applies the result.
extension AssignmentPolicy {
    /// The relationship's new targets; `nil` leaves the relationship as it is.
    func combine(current: [ObjectID], incoming: [ObjectID], isNull: Bool) -> [ObjectID]? {
        switch self {
        case .assign, .objectReplace, .collectionReplace: incoming
        case .objectMerge: incoming.isEmpty ? nil : incoming
        case .collectionMerge: isNull ? nil : current + incoming
        }
    }

    /// Whether `combine` reads the current targets. Reading them copies the target list, so
    /// plain assignment (the common case) skips it.
    var readsCurrent: Bool { self != .assign && self != .objectMerge }

    /// The replace policies delete the objects the relationship held and no longer holds
    /// (`old − new`: an object that comes again is never deleted); their delete rules apply.
    var deletesReplaced: Bool { self == .objectReplace || self == .collectionReplace }
}
