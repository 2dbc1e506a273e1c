import Glibc
import MappingLock
import MappingCore
import MappingEngine

/// What a `mapping_context *` stands for: the engine's context, the entity names as C strings
/// (borrowed by C for the context's lifetime) and each thread's slot.
final class ContextHandle: @unchecked Sendable {
    let core: MappingContext
    let entityNames: [String: UnsafeMutablePointer<CChar>]
    /// Per entity, the names of its attributes and relationships in declaration order (inherited first).
    let attributeNames: [String: [UnsafeMutablePointer<CChar>]]
    let relationshipNames: [String: [UnsafeMutablePointer<CChar>]]
    private let slots = Locked<[UInt: ThreadSlot]>([:])

    init(core: MappingContext) {
        self.core = core
        var names: [String: UnsafeMutablePointer<CChar>] = [:]
        var attributes: [String: [UnsafeMutablePointer<CChar>]] = [:]
        var relationships: [String: [UnsafeMutablePointer<CChar>]] = [:]
        for entity in core.model.entities {
            names[entity.name] = CString.copy(entity.name.utf8)
            attributes[entity.name] = entity.attributes.compactMap { CString.copy($0.name.utf8) }
            relationships[entity.name] = entity.relationships.compactMap { CString.copy($0.name.utf8) }
        }
        entityNames = names
        attributeNames = attributes
        relationshipNames = relationships
    }

    deinit {
        for pointer in entityNames.values { free(pointer) }
        for pointers in attributeNames.values { for pointer in pointers { free(pointer) } }
        for pointers in relationshipNames.values { for pointer in pointers { free(pointer) } }
    }

    /// The calling thread's slot, marked as inside a call; `nil` if the thread is already inside
    /// one (a callback calling back into the same context).
    func enter() -> (ThreadSlot, reentrant: Bool) {
        let thread = callingThread()
        return slots.withLock { slots in
            let slot = slots[thread] ?? ThreadSlot()
            slots[thread] = slot
            if slot.inside { return (slot, true) }
            slot.inside = true
            return (slot, false)
        }
    }

    func leave(_ slot: ThreadSlot) {
        slots.withLock { _ in slot.inside = false }
    }

    /// The calling thread's slot, if it has made a call on this context.
    func existingSlot() -> ThreadSlot? {
        let thread = callingThread()
        return slots.withLock { $0[thread] }
    }
}

/// What a `mapping_list *` stands for: an immutable snapshot of object handles.
final class ListHandle: Sendable {
    let objects: [ObjectID]
    init(_ objects: [ObjectID]) { self.objects = objects }
}

/// The live handles of one kind given to C. A pointer is looked up here before use, so a NULL, freed
/// or forged pointer is an error instead of a crash; the strong reference returned keeps the object
/// alive for the whole call even if another thread frees the handle meanwhile.
///
/// The pointers are not addresses: each is a number drawn once from a process-wide counter, so a
/// freed handle stays invalid for good. (Addresses come back: malloc reuses a freed list's memory
/// for the next list, and the stale pointer would then name it.) C only ever passes them back.
final class HandleTable<Object: AnyObject>: @unchecked Sendable {
    private let entries = Locked<[UInt: Object]>([:])

    func add(_ object: Object) -> OpaquePointer? {
        let key = HandleNumbers.next()
        entries.withLock { $0[key] = object }
        return OpaquePointer(bitPattern: key)  // never nil: the counter starts above 0 and only grows
    }

    func find(_ pointer: OpaquePointer?) -> Object? {
        guard let pointer else { return nil }
        return entries.withLock { $0[UInt(bitPattern: pointer)] }
    }

    @discardableResult
    func remove(_ pointer: OpaquePointer?) -> Object? {
        guard let pointer else { return nil }
        return entries.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) }
    }
}

/// The numbers behind the handles of every kind: one counter, so a handle of one kind is never a
/// handle of another. At 16 per handle, 64 bits last 2^60 handles: the counter never wraps.
private enum HandleNumbers {
    private static let counter = Locked<UInt>(0x1000)

    static func next() -> UInt {
        counter.withLock { value in
            value &+= 16
            return value
        }
    }
}

/// Every handle given to C, by kind.
enum Registry {
    static let contexts = HandleTable<ContextHandle>()
    static let lists = HandleTable<ListHandle>()
    static let outputs = HandleTable<TransformOutput>()
    static let changes = HandleTable<ChangesHandle>()
    static let fetchChanges = HandleTable<FetchChangeHandle>()

    /// The list a caller passed, or the misuse error every list-taking call reports.
    static func list(_ pointer: OpaquePointer?) throws(MappingError) -> ListHandle {
        guard let list = lists.find(pointer) else {
            throw MappingError(.misuse, pointer == nil ? "the list is NULL" : "the list was freed or is not a mapping_list")
        }
        return list
    }
}
