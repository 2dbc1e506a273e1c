"""03 — Write objects back out as JSON through a mapping.
Introduces: Context.serialize (one object, a list, pretty)."""
from _common import open_context, payload

with open_context() as ctx:
    data = payload()
    events = ctx.import_json("event", data)
    print(ctx.serialize("user", ctx.get("User", 138052), pretty=True))
    text = ctx.serialize("event", events)
    print(f"all events written back: {len(text.encode())} bytes (input {len(data)})")
