"""01 — Load a spec, import a real API payload (GitHub events), count what the graph holds.
Introduces: Context, Context.import_json, Context.count."""
from _common import open_context, payload

with open_context() as ctx:
    events = ctx.import_json("event", payload())
    print(f"imported {len(events)} events")
    for entity in ("Event", "User", "Repo", "Org"):
        print(f"{entity:<5} {ctx.count(entity)}")
