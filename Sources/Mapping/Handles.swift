import Glibc
import MappingLock
import MappingCore

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
        let thread = currentThread()
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
        let thread = currentThread()
        return slots.withLock { $0[thread] }
    }
}

/// What a `mapping_list *` stands for: an immutable snapshot of object handles.
final class ListHandle: Sendable {
    let objects: [ObjectID]
    init(_ objects: [ObjectID]) { self.objects = objects }
}

/// The live handles given to C. A pointer is looked up here before use, so a NULL, freed or forged
/// pointer is an error instead of a crash; the strong reference taken keeps the object alive for
/// the whole call even if another thread frees the handle meanwhile.
enum Registry {
    private static let contexts = Locked<[UInt: ContextHandle]>([:])
    private static let lists = Locked<[UInt: ListHandle]>([:])
    private static let outputs = Locked<[UInt: TransformOutput]>([:])

    static func add(_ context: ContextHandle) -> OpaquePointer {
        let pointer = OpaquePointer(Unmanaged.passUnretained(context).toOpaque())
        contexts.withLock { $0[UInt(bitPattern: pointer)] = context }
        return pointer
    }

    static func context(_ pointer: OpaquePointer?) -> ContextHandle? {
        guard let pointer else { return nil }
        return contexts.withLock { $0[UInt(bitPattern: pointer)] }
    }

    @discardableResult
    static func removeContext(_ pointer: OpaquePointer?) -> ContextHandle? {
        guard let pointer else { return nil }
        return contexts.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) }
    }

    static func add(_ list: ListHandle) -> OpaquePointer {
        let pointer = OpaquePointer(Unmanaged.passUnretained(list).toOpaque())
        lists.withLock { $0[UInt(bitPattern: pointer)] = list }
        return pointer
    }

    static func list(_ pointer: OpaquePointer?) -> ListHandle? {
        guard let pointer else { return nil }
        return lists.withLock { $0[UInt(bitPattern: pointer)] }
    }

    @discardableResult
    static func removeList(_ pointer: OpaquePointer?) -> ListHandle? {
        guard let pointer else { return nil }
        return lists.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) }
    }

    static func add(_ output: TransformOutput) -> OpaquePointer {
        let pointer = OpaquePointer(Unmanaged.passUnretained(output).toOpaque())
        outputs.withLock { $0[UInt(bitPattern: pointer)] = output }
        return pointer
    }

    static func output(_ pointer: OpaquePointer?) -> TransformOutput? {
        guard let pointer else { return nil }
        return outputs.withLock { $0[UInt(bitPattern: pointer)] }
    }

    static func removeOutput(_ pointer: OpaquePointer) {
        _ = outputs.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) }
    }
}
