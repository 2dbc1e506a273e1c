import MappingEngine

// A spec: the model (entities) and the shapes of the payloads (mappings).
let spec = """
{
  "entities": {
    "User": {
      "attributes": {"id": "integer", "login": "string"},
      "identification": "id",
      "relationships": {"events": {"entity": "Event", "toMany": true, "inverse": "actor"}}
    },
    "Event": {
      "attributes": {"id": "string", "type": "string", "createdAt": "date"},
      "identification": "id",
      "relationships": {"actor": {"entity": "User", "inverse": "events"}}
    }
  },
  "mappings": {
    "event": {
      "entity": "Event",
      "attributes": {"id": "id", "type": "type", "createdAt": "created_at"},
      "relationships": {"actor": {"keyPath": "actor", "mapping": "user"}}
    },
    "user": {"entity": "User", "attributes": {"id": "id", "login": "login"}}
  }
}
"""

// A payload as a web API sends it: ada appears twice, as two copies of the same user.
let payload = """
[
  {"id": "1", "type": "PushEvent", "created_at": "2025-03-01T09:00:00Z", "actor": {"id": 7, "login": "ada"}},
  {"id": "2", "type": "WatchEvent", "created_at": "2025-03-01T10:00:00Z", "actor": {"id": 8, "login": "grace"}},
  {"id": "3", "type": "PushEvent", "created_at": "2025-03-02T08:30:00Z", "actor": {"id": 7, "login": "ada"}}
]
"""

// A context holds the spec and its object graph, here in memory. Import maps all of the payload
// or, on any error, none of it; it returns the top-level objects in payload order.
let context = try MappingContext(specJSON: spec)
let events = try context.importJSON(mapping: "event", payload)
print("\(events.count) events by \(try context.count(of: "User")) users")

// One object per identity: both of ada's events lead to the same User.
guard let ada = try context.object(of: "User", identity: 7) else {
    throw MappingError(.name, "no user 7")
}
let adasEvents = try context.relatedObjects(of: ada, relationship: "events")
print("\(try context.value("login", of: ada)?.stringValue ?? "") has \(adasEvents.count) events")

// A query: a predicate with an argument bound to %@, sorted newest first.
let pushes = try context.fetch(FetchRequest(entity: "Event", predicate: "type == %@",
                                            arguments: ["PushEvent"], sort: "-createdAt"))
for push in pushes {
    let id = try context.value("id", of: push)?.stringValue ?? ""
    let at = try context.value("createdAt", of: push)?.dateValue?.iso8601 ?? ""
    print("push \(id) at \(at)")
}

// Observers, as an AsyncSequence: each commit's change set. They wait in the stream until read.
let changes = context.changes()

// Change values one call at a time (each call is a commit)...
try context.set(ada, attribute: "login", to: "ada-lovelace")

// ...or several in a transaction: one commit, all of it or nothing.
try context.transaction {
    let octocat = try context.create("User", ["id": 9, "login": "octocat"])
    try context.setRelated(events[1], relationship: "actor", to: [octocat])
}

for await change in changes.prefix(2) {
    let inserted = change.inserted.map(\.entity)
    let updated = change.updated.map { "\($0.entity) \($0.changed.joined(separator: ","))" }
    print("inserted \(inserted), updated \(updated)")
}

// Back to JSON through a mapping.
print(try context.serialize(mapping: "user", objects: [ada], asList: false))

// A store: the graph kept in an SQLite file, written at every commit. A context that opens the
// file again finds every object there.
do {
    let stored = try MappingContext.open(specJSON: spec, at: "tutorial.db")
    _ = try stored.importJSON(mapping: "event", payload)
}
let reopened = try MappingContext.open(specJSON: spec, at: "tutorial.db")
print("the store holds \(try reopened.count(of: "Event")) events")
