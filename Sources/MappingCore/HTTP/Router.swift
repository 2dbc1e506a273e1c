/// HTTP methods as a set, so a route may answer several (`["HEAD", "GET"]`) or any (`"ANY"`).
public struct HTTPMethods: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let get = HTTPMethods(rawValue: 1 << 0)
    public static let post = HTTPMethods(rawValue: 1 << 1)
    public static let put = HTTPMethods(rawValue: 1 << 2)
    public static let patch = HTTPMethods(rawValue: 1 << 3)
    public static let delete = HTTPMethods(rawValue: 1 << 4)
    public static let head = HTTPMethods(rawValue: 1 << 5)
    public static let options = HTTPMethods(rawValue: 1 << 6)
    public static let any = HTTPMethods(rawValue: 0x7F)

    static let names: [(String, HTTPMethods)] = [("GET", .get), ("POST", .post), ("PUT", .put), ("PATCH", .patch),
                                                 ("DELETE", .delete), ("HEAD", .head), ("OPTIONS", .options)]

    /// One method by name (case-insensitive), or `ANY`.
    public init?(name: String) {
        let upper = name.uppercased()
        if upper == "ANY" { self = .any; return }
        guard let found = HTTPMethods.names.first(where: { $0.0 == upper }) else { return nil }
        self = found.1
    }

    var isSingle: Bool { rawValue != 0 && rawValue & (rawValue - 1) == 0 }
}

/// A route: a path pattern for an entity and method(s), for a relationship of an entity, or by name.
public struct Route: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        case entity(Int)
        case relationship(String, entity: Int)
        case named(String)
    }

    public let target: Target
    public let methods: HTTPMethods
    public let pattern: PathPattern
}

/// The routes of a spec, looked up as RestKit's router does: for an object,
/// its entity first — an exact method, then a set of methods containing it, then `ANY` — and only then
/// the parent entity, and so on up.
public struct RouteTable: Sendable {
    public let routes: [Route]

    public func named(_ name: String) -> Route? {
        routes.first { $0.target == .named(name) }
    }

    /// The route for an object of `entity` and `method`, walking up the parent entities.
    public func route(for entity: Int, method: HTTPMethods, model: Model) -> Route? {
        var current: Int? = entity
        var steps = 0
        while let level = current, steps <= model.entities.count {
            let here = routes.filter { $0.target == .entity(level) }
            if let exact = here.first(where: { $0.methods == method }) { return exact }
            if let contained = here.first(where: { $0.methods != .any && $0.methods.isSuperset(of: method) }) { return contained }
            if let wildcard = here.first(where: { $0.methods == .any }) { return wildcard }
            current = model.entities.indices.contains(level) ? model.entities[level].parent : nil
            steps += 1
        }
        return nil
    }

    /// The route for a relationship of exactly `entity`: the method, or `ANY`.
    public func route(forRelationship name: String, of entity: Int, method: HTTPMethods) -> Route? {
        let candidates = routes.filter { $0.target == .relationship(name, entity: entity) }
        return candidates.first { $0.methods == method } ?? candidates.first { $0.methods.isSuperset(of: method) }
    }

    /// The entity routes of `entity` (with `inherited`, of its parents too).
    public func routes(for entity: Int, inherited: Bool, model: Model) -> [Route] {
        routes.filter { route in
            guard case .entity(let owner) = route.target else { return false }
            return inherited ? model.isKind(entity, of: owner) : owner == entity
        }
    }

    public func routes(forRelationship name: String) -> [Route] {
        routes.filter { if case .relationship(name, _) = $0.target { true } else { false } }
    }
}
