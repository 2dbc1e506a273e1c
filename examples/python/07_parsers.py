"""07 — The two parsers: jansson (the default) and simdjson (faster on large payloads), chosen per
context or per import; both build the same graph and report bad JSON the same way.
Introduces: mapping.available_parsers, Context(spec, parser=...), import_json(..., parser=...)."""
import time

import mapping
from _common import DATA, payload

print("parsers in this build:", ", ".join(mapping.available_parsers()))
data = payload()  # the GitHub events, imported 200 times below so the difference shows
graphs = {}
for parser in mapping.available_parsers():
    with mapping.Context(DATA / "github.spec.json", parser=parser) as ctx:
        started = time.perf_counter()
        for _ in range(200):
            ctx.import_json("event", data)
        seconds = time.perf_counter() - started
        graphs[parser] = sorted((event["id"], event.related("actor")["login"]) for event in ctx.all("Event"))
        print(f"{parser:<8} 200 imports in {seconds * 1000:6.1f} ms: {ctx.count('Event')} events, {ctx.count('User')} users")
        try:
            ctx.import_json("event", b'[{"id": "1",\n  "type": }]')
        except mapping.ParseError as error:
            print(f"{'':<8} bad JSON: line {error.line}, column {error.column}: {error}")
assert len(set(map(tuple, graphs.values()))) == 1, "both parsers build the same graph"
print("same graph from every parser:", len(next(iter(graphs.values()))), "events compared")
