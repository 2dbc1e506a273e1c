import MappingArena

/// The identity map of one identification, as SQLAlchemy's identity map: each identity key names
/// the one live object that has it, so mapping the same identity again finds that object instead of
/// making another. Every way of computing a key lives here: from a stored record, from values
/// already coerced (the importer, the connector), and from a caller's loose JSON identity.
///
/// Keys that are one integer, the common case, live in an `IntegerKeyTable` (a cheap hash, flat
/// arrays); keys that are one string, in a `StringKeyTable` (filed under the bytes the
/// identification column holds, compared as bytes: no `String` compared, no copy); every other key
/// (compound keys, other types) in a dictionary.
struct IdentityMap {
    private var integers = IntegerKeyTable()
    private var strings = StringKeyTable()
    private var others: [IdentityKey: ObjectID] = [:]

    /// Inlined, as the store's other small readers (rule 3 of `HotPath.md`): called through the
    /// store's array of maps, a call copied the map out of it (a retain of each table it holds).
    @inline(__always) func object(for key: IdentityKey, arena: StringArena) -> ObjectID? {
        switch key {
        case .single(.integer(let number)): return integers[number]
        case .single(.string(let text)):
            if let found = strings.object(for: text, arena: arena) { return found }
            return others.isEmpty ? nil : others[key]
        default: return others.isEmpty ? nil : others[key]
        }
    }

    /// The object under a single string key given as its UTF-8 bytes (keys the arena could not
    /// hold, in `others`, are not looked at: `object(for:)` finds those).
    @inline(__always) func object(forBytes bytes: UnsafeRawBufferPointer, arena: StringArena) -> ObjectID? {
        strings.object(forBytes: bytes, arena: arena)
    }

    var count: Int { integers.count + strings.count + others.count }

    /// Every entry, in no particular order (for the invariant checks).
    func entries(arena: StringArena) -> [(key: IdentityKey, object: ObjectID)] {
        integers.entries.map { (IdentityKey.single(.integer($0.key)), $0.object) }
            + strings.entries(arena: arena).map { (IdentityKey.single(.string($0.key)), $0.object) }
            + others.map { ($0.key, $0.value) }
    }

    /// Sets or clears the entry for `key`; returns the object it named before. A string key is
    /// filed under `stored` when that holds its bytes (the object's identification column), else
    /// under a copy in the arena.
    @discardableResult
    mutating func set(_ object: ObjectID?, for key: IdentityKey, arena: StringArena,
                      stored: StringArena.Ref? = nil) -> ObjectID? {
        switch key {
        case .single(.integer(let number)):
            if let object { return integers.set(object, for: number) }
            return integers.remove(number)
        case .single(.string(let text)):
            guard let object else { return strings.remove(text, arena: arena) ?? others.removeValue(forKey: key) }
            let filed = strings.set(object, for: text, stored: stored, arena: arena)
            // A key the arena cannot hold (4 GiB or more) is kept as it came.
            return filed.filed ? filed.previous : others.updateValue(object, forKey: key)
        default:
            if let object { return others.updateValue(object, forKey: key) }
            return others.removeValue(forKey: key)
        }
    }

    /// Room for `additional` more entries, so an import of a large collection does not rehash.
    mutating func reserve(additional: Int, keyedBy type: AttributeType?, arena: StringArena) {
        guard additional > 0 else { return }
        // Capped: the count comes from a payload's array, which may hold nulls and non-objects.
        let wanted = min(additional, 1 << 24)
        switch type {
        case .integer: integers.reserve(additional: wanted)
        case .string: strings.reserve(additional: wanted, arena: arena)
        default: others.reserveCapacity(others.count + wanted)
        }
    }

    /// Drops the entries whose object `isGone` says is gone (a rollback's purge).
    mutating func removeAll(where isGone: (ObjectID) -> Bool, arena: StringArena) {
        integers.filter { !isGone($0) }
        strings.filter(arena: arena) { !isGone($0) }
        others = others.filter { !isGone($0.value) }
    }

    /// The key a caller's identity stands for: the value of a single identification attribute, or
    /// for a compound one an array in identification order or an object keyed by attribute name.
    /// Values are coerced as on import (`"123"` finds `123`); `nil` when one of them is null.
    static func key(for identity: JSONValue, of entity: Entity) throws(MappingError) -> IdentityKey? {
        let sources: [JSONValue]
        let names = entity.identification.map { entity.attributes[$0].name }
        switch identity {
        case .array(let elements) where names.count > 1:
            sources = elements
        case .object where names.count > 1:
            var collected: [JSONValue] = []
            for name in names {
                guard let value = identity[name] else {
                    throw MappingError(.misuse, "the identity lacks \"\(name)\"", attribute: entity.name + "." + name)
                }
                collected.append(value)
            }
            sources = collected
        default:
            sources = [identity]
        }
        guard sources.count == names.count else {
            throw MappingError(.misuse, "entity \"\(entity.name)\" is identified by \(names.count) attributes (\(names.joined(separator: ", "))), the identity gives \(sources.count)")
        }
        var values: [AttributeValue] = []
        for (attribute, source) in zip(entity.identification, sources) {
            let declared = entity.attributes[attribute]
            let coerced: Coerced
            do {
                coerced = try Coercion.coerce(source, reader: JSONValueReader(), to: declared.type, depthLimit: 1)
            } catch {
                throw MappingError(error.code, "identity for \(entity.name).\(declared.name): \(error.message)",
                                   attribute: entity.name + "." + declared.name)
            }
            guard case .value(let value) = coerced else { return nil }
            values.append(value)
        }
        return IdentityKey(values)
    }
}

/// The key of an identity map: the identification values after coercion to the attributes' types,
/// so `"123"` and `123` for an integer id are one key.
package enum IdentityKey: Hashable {
    case single(AttributeValue)
    case compound([AttributeValue])

    init(_ values: [AttributeValue]) {
        self = values.count == 1 ? .single(values[0]) : .compound(values)
    }

    /// The values in identification order (an array, for the rarer paths that need one).
    var values: [AttributeValue] {
        switch self {
        case .single(let value): [value]
        case .compound(let values): values
        }
    }

    /// The values as JSON text, for messages: `"a"`, or `1, "x"`.
    var text: String {
        switch self {
        case .single(let value): value.jsonText
        case .compound(let values): values.map(\.jsonText).joined(separator: ", ")
        }
    }
}
