"""02 — Read attributes and follow relationships both ways.
Introduces: Object[attribute], Object.get, Object.related, Context.get, json attributes, repr of an
object and of an ObjectList."""
import json

from _common import open_context, payload

with open_context() as ctx:
    events = ctx.import_json("event", payload())
    for event in events[:3]:
        created = event["createdAt"]
        print(f"{created.timestamp():.0f} {event['type']:<18} by {event.related('actor')['login']:<10}"
              f" on {event.related('repo')['name']}")

    repo = ctx.get("Repo", 6357414)
    repo_events = repo.related("events")
    print(f"repo 6357414 has {len(repo_events)} event(s)")
    print(f"its payload starts {json.dumps(repo_events[0]['payload'], separators=(',', ':'))[:60]}...")
    print(f"repr shows the entity and the identity: {repo!r}, {repo_events!r}")
    # Object.get is dict.get: the default for a null (or never set) attribute.
    print(f"org of the first event: {events[0].related('org') or 'none'}; "
          f"its actor's avatar: {events[0].related('actor').get('avatarURL', '(none)')}")
