"""The SQLite store against memory, side by side in one run (`make bench` writes bench/store.md):
people 100k (bench/people.py) imported cold into a store and into memory on both parsers, imported
again with no changes, and a 100k-person store opened and read whole (opening reads no rows; the
first call that needs the whole graph, here a count by a predicate the database cannot test, reads them all) against a cold simdjson import
of the same JSON — time, and the memory the process holds after each (each measured in a fresh
process). Targets (issue 12): store import ≤ 1.5× memory, re-import ≤ 1.1×, reading the store
whole ≤ 0.5× the import, and no more memory after it than after the import. Issue 24 adds the
baseline a user without libmapping would write: Python's sqlite3 with upserts
(`people_store.SQLITE_UPSERTS`), and
the re-import with a cache that holds the whole import beside the default limit (100,000 objects,
fewer than the 250,000 the payload makes: the second import reads back what the first evicted)."""
import json
import os
import subprocess
import sys
import tempfile

from people_store import SQLITE_UPSERTS

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "people.spec.json")
COUNT = 100_000
ROUNDS = 3

WORK = r"""
import json, os, pathlib, sys, time
sys.path.insert(0, sys.argv[1])
import mapping
kind, parser, spec, data_path, store, limit = sys.argv[2:8]
spec = pathlib.Path(spec)  # a file (a str spec is JSON text)
data = open(data_path, "rb").read()
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
t = time.perf_counter()
if kind == "open":
    ctx = mapping.Context(spec, store=store, cache_limit=None)
    # Every row read: a predicate the database cannot test makes a count read all of an entity's rows.
    for entity, attribute in (("Person", "name"), ("Company", "name"), ("Phone", "number")):
        ctx.count(entity, f"{attribute} MATCHES %@ OR {attribute} == nil", ".*")
    first = time.perf_counter() - t
    again = 0.0
else:
    options = {"cache_limit": None} if limit == "none" else {}
    ctx = mapping.Context(spec, parser=parser, store=store or None, **options)
    ctx.import_json("person", data)
    first = time.perf_counter() - t
    t = time.perf_counter()
    ctx.import_json("person", data)
    again = time.perf_counter() - t
print(json.dumps({"first": first, "again": again, "rss": rss(), "people": ctx.count("Person")}))
ctx.close()
"""




def run(kind, parser, data_path, store="", limit="default"):
    binding = os.path.join(HERE, "..", "bindings", "python", "src")
    out = subprocess.run([sys.executable, "-c", WORK, binding, kind, parser, SPEC, data_path, store, limit],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def by_hand(data_path, store):
    """The hand-written sqlite3 import, twice (as the store is imported), in a process of its own."""
    out = subprocess.run([sys.executable, "-c", SQLITE_UPSERTS, data_path, store, "2"], check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    if result["people"] != COUNT:
        raise SystemExit(f"the sqlite3 script stored {result['people']} people, not {COUNT}")
    first, again = result["seconds"]
    return {"first": first, "again": again}


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main():
    with tempfile.TemporaryDirectory() as folder:
        data_path = os.path.join(folder, "people.json")
        with open(data_path, "w") as file:
            subprocess.run([sys.executable, os.path.join(HERE, "people.py"), str(COUNT)], check=True, stdout=file)
        rows = []
        results = {}
        hand = [by_hand(data_path, os.path.join(folder, f"sqlite3_{round_}.db")) for round_ in range(ROUNDS)]
        h, ha = median([r["first"] for r in hand]), median([r["again"] for r in hand])
        for parser in ("jansson", "simdjson"):
            memory, stored, unlimited = [], [], []
            for round_ in range(ROUNDS):
                memory.append(run("import", parser, data_path))
                path = os.path.join(folder, f"{parser}{round_}.db")
                stored.append(run("import", parser, data_path, path))
                unlimited.append(run("import", parser, data_path, os.path.join(folder, f"{parser}{round_}_all.db"), "none"))
            results[parser] = (memory, stored, path)
            m, s = median([r["first"] for r in memory]), median([r["first"] for r in stored])
            ma, sa = median([r["again"] for r in memory]), median([r["again"] for r in stored])
            ua = median([r["again"] for r in unlimited])
            rows.append(f"| {parser} | cold import | {m:.2f} s | {s:.2f} s | {s / m:.2f}× | ≤ 1.5× |")
            rows.append(f"| {parser} | cold import vs Python's sqlite3 with upserts (in the memory column) | {h:.2f} s | {s:.2f} s | {s / h:.2f}× | ≤ 1.0× |")
            rows.append(f"| {parser} | re-import, no changes (default cache limit) | {ma:.2f} s | {sa:.2f} s | {sa / ma:.2f}× | ≤ 1.1× |")
            rows.append(f"| {parser} | re-import, no changes (no cache limit) | {ma:.2f} s | {ua:.2f} s | {ua / ma:.2f}× | ≤ 1.1× |")
            rows.append(f"| {parser} | re-import vs Python's sqlite3 upserting again (in the memory column) | {ha:.2f} s | {sa:.2f} s | {sa / ha:.2f}× | |")
        memory, _, path = results["simdjson"]
        opened = [run("open", "simdjson", data_path, path) for _ in range(ROUNDS)]
        imported = median([r["first"] for r in memory])
        opening = median([r["first"] for r in opened])
        rows.append(f"| simdjson | open and read the store whole vs a cold import | {imported:.2f} s | {opening:.2f} s | {opening / imported:.2f}× | ≤ 0.5× |")
        rss_import = median([r["rss"] for r in memory]) / 2**20
        rss_open = median([r["rss"] for r in opened]) / 2**20
        rows.append(f"| simdjson | memory held after reading the store vs after import | {rss_import:.0f} MB | {rss_open:.0f} MB | {rss_open / rss_import:.2f}× | ≤ 1.0× |")
    print(f"# The SQLite store against memory ({COUNT:,} people, medians of {ROUNDS} runs, each in a fresh process)\n")
    print("| parser | what | memory | store | ratio | target |")
    print("|---|---|---:|---:|---:|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
