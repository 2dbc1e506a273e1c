"""02 — Read attributes and follow relationships both ways.
Introduces: Object[attribute], Object.related, Context.get, json attributes."""
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
