"""08 — Observe commits and watch a fetch.
Introduces: Context.observe, ChangeSet, Context.watch, FetchChange, Observer as a context manager."""
from _common import open_context, payload


def report(changes):
    print(f"commit: {len(changes.inserted)} inserted, {len(changes.updated)} updated, {len(changes.deleted)} deleted")
    for update in changes.updated[:3]:
        print(f"  updated {update.object!r}: {list(update.changed)}")


with open_context() as ctx, ctx.observe(report):
    ctx.import_json("event", payload())        # everything is new
    ctx.import_json("event", payload())        # the same data again: no commit to report
    with ctx.watch(lambda change: print(f"  watched users: moved {list(change.moved)}"), "User", sort="login"):
        ctx.get("User", 138052)["login"] = "zz-jathanism"   # sorts last now
