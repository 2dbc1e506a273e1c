// A Swift program depends on the MappingEngine product and imports MappingEngine alone: the types
// the context's API takes and returns (MappingError, ObjectID, JSONValue, FetchRequest, ChangeSet,
// AttributeValue, …) are MappingCore's, so this module re-exports it.
@_exported public import MappingCore
