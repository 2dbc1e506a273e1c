"""09 — An offline cache in an SQLite store: map, close, reopen in a new context, query, observe a
second import. Introduces: Context(spec, store=path), StoreError, BusyError."""
import os

import mapping
from _common import DATA, payload

PATH = os.path.join(os.environ.get("TMPDIR", "/tmp"), "github-events.db")
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(PATH + suffix):
        os.remove(PATH + suffix)

with mapping.Context(DATA / "github.spec.json", store=PATH) as ctx:
    ctx.import_json("event", payload())        # written to the file before it returns
    print(f"stored {ctx.count('Event')} events by {ctx.count('User')} users")
    try:
        mapping.Context(DATA / "github.spec.json", store=PATH)
    except mapping.BusyError as error:
        print(f"a second context is refused: {error.message}")

def report(changes):
    print(f"observed a commit: {len(changes.inserted)} inserted, {len(changes.updated)} updated")


with mapping.Context(DATA / "github.spec.json", store=PATH) as ctx:   # a new context reads the file
    user = ctx.get("User", 138052)
    print(f"reopened: {user!r} has {len(user.related('events'))} event(s); {ctx.count('Event')} events in all,"
          f" {ctx.count('Event', 'type == %@', 'PushEvent')} of them pushes")
    with ctx.observe(report):
        ctx.import_json("event", payload())    # the same data again: nothing written, nothing observed
        user["login"] = "jathanism-renamed"    # one change: observed and written
print(f"query it with: sqlite3 {PATH} .schema")
