"""Reading one attribute of 100k objects from Python (issue 5, target 5): the bulk call
ctx.values against the baseline of a list of Python dicts, and against one ctypes call per object,
interleaved in one run; medians and ratios to the dict baseline. Then an indexed fetch from Python
(`age == %@` on an indexed attribute, 2,000 of 100k objects) against a dict index and a list scan.
Run by `make bench`."""
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bindings", "python", "src"))
import mapping  # noqa: E402

COUNT, ROUNDS, PER_OBJECT_SAMPLE = 100_000, 7, 10_000
SPEC = {"entities": {"Person": {"attributes": {"id": "integer", "name": "string",
                                               "age": {"type": "integer", "indexed": True}}}},
        "mappings": {"person": {"entity": "Person", "attributes": {"id": "id", "name": "name", "age": "age"}}}}


def timed(work):
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def main():
    rows = [{"id": i, "name": f"person {i}", "age": 20 + i % 50} for i in range(COUNT)]
    with mapping.Context(SPEC) as ctx:
        people = ctx.import_json("person", json.dumps(rows))
        samples = {"dicts": [], "bulk": [], "per-object": [], "fetch": [], "dict-index": [], "scan": []}
        by_age = {}
        for row in rows:
            by_age.setdefault(row["age"], []).append(row)
        for _ in range(ROUNDS):
            seconds, from_dicts = timed(lambda: [row["name"] for row in rows])
            samples["dicts"].append(seconds)
            seconds, from_bulk = timed(lambda: ctx.values(people, "name"))
            samples["bulk"].append(seconds)
            assert from_bulk == from_dicts  # the same job, the same answer
            seconds, _ = timed(lambda: [person["name"] for person in people[:PER_OBJECT_SAMPLE]])
            samples["per-object"].append(seconds * COUNT / PER_OBJECT_SAMPLE)
            seconds, fetched = timed(lambda: ctx.fetch("Person", "age == %@", 30))
            samples["fetch"].append(seconds)
            seconds, indexed = timed(lambda: by_age.get(30, []))
            samples["dict-index"].append(seconds)
            seconds, scanned = timed(lambda: [row for row in rows if row["age"] == 30])
            samples["scan"].append(seconds)
            assert len(fetched) == len(indexed) == len(scanned) == COUNT // 50
    base = statistics.median(samples["dicts"])
    print(f"# Reading one attribute of {COUNT:,} objects from Python ({ROUNDS} interleaved rounds, medians)\n")
    print(f"Machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}\n")
    print("| way | time | vs list of dicts |\n|---|---|---|")
    for name, label in [("dicts", "list of Python dicts (baseline)"), ("bulk", "`ctx.values(objects, attr)`"),
                        ("per-object", "`obj[attr]` per object (extrapolated from 10k)")]:
        median = statistics.median(samples[name])
        print(f"| {label} | {median * 1e3:.1f} ms | {median / base:.1f}× |")
    print(f"\n## An indexed fetch: `age == 30` ({COUNT // 50:,} of {COUNT:,} objects)\n")
    print("| way | time |\n|---|---|")
    for name, label in [("fetch", "`ctx.fetch(\"Person\", \"age == %@\", 30)` (indexed attribute)"),
                        ("dict-index", "a Python dict from age to rows, built beforehand"),
                        ("scan", "a list comprehension over the dicts")]:
        print(f"| {label} | {statistics.median(samples[name]) * 1e3:.2f} ms |")


if __name__ == "__main__":
    main()
