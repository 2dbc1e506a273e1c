"""A large SQLite store in use (`make bench` writes bench/store_large.md), each figure the median of
ROUNDS fresh processes:

- a page: open the store and import a page of 10,000 people (bench/people.py, simdjson), committed
  — once into an empty store, once into a store that already holds N people (the page updates
  10,000 of them and their companies and phones), each on a fresh copy; time from before the open
  to the end of the import, and the extra peak memory for it. The generated page is made for 10,000
  people, so a third of its people move to other companies of a larger store; a second page is the
  store's own first 10,000 people with every name changed (what a program that fetches its first
  page again sends), also into an empty store and into the full one. Beside it, the same page written
  by hand (Python's sqlite3 with upserts, bench/store.md's baseline) into a database of the same N
  people and into an empty one: what SQLite itself pays for a store of that size. Every copy of a
  store is flushed to disk before its run (`fresh_copy`);
- a fetch: open the store, fetch the people whose id is in a range holding 1% of them (the
  identification's unique index) and read their emails (`ctx.values`), against Python's sqlite3
  running the same SELECT of the emails on the same file;
- a walk: open the store, fetch every person and read each email, with the default cache limit and
  without one (the extra peak memory: target ≤ 100 MB at 1M with the default);
- a working set: open the store, read 10,000 random people by id with their email, their
  company's name and their phones' numbers; the extra peak memory it took (target ≤ 50 MB at 1M);
- transactions: open the store, begin, change one person's name, commit; and open the store and
  import the store's own first 10,000 people (names changed) in chunks of 1,000 (a chunked import
  is one transaction), beside the same page imported whole.

Sizes: 100k people; 1M as well with MAPPING_BENCH_1M=1 (its store takes minutes to make). Targets
(issue 24): the page into the 1M store ≤ 1.3× the page into an empty store; the fetch ≤ 3× sqlite3.
Reading only the rows a call touches is what makes these comparable at all: before, opening read
the whole store first."""
import os
import pathlib
import subprocess
import sys
import tempfile

from people_store import BINDING, SPEC, fresh_copy, median, people, people_store, remove_store, run_script, upserts

PAGE = 10_000
ROUNDS = 3

PAGE_IMPORT = r"""
import json, os, pathlib, resource, sys, time
sys.path.insert(0, sys.argv[1])
import mapping
spec, store, page = pathlib.Path(sys.argv[2]), sys.argv[3], open(sys.argv[4], "rb").read()
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before = rss()
t = time.perf_counter()
ctx = mapping.Context(spec, store=store, parser="simdjson")
mapped = len(ctx.import_json("person", page))
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": elapsed, "extra": max(0, peak - before), "mapped": mapped}))
"""


FETCH = r"""
import json, os, pathlib, resource, sys, time
sys.path.insert(0, sys.argv[1])
kind, spec, store, low, high = sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
if kind == "libmapping":
    import mapping
else:
    import sqlite3
t = time.perf_counter()
if kind == "libmapping":
    ctx = mapping.Context(spec, store=store, read_only=True)
    emails = ctx.values(ctx.fetch("Person", "id BETWEEN %@", [low, high]), "email")
else:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    emails = [row[0] for row in db.execute('SELECT "email" FROM "Person" WHERE "id" BETWEEN ? AND ? ORDER BY "_id"', (low, high))]
elapsed = time.perf_counter() - t
print(json.dumps({"seconds": elapsed, "count": len(emails), "first": emails[0] if emails else None}))
"""


WORKING = r"""
import json, os, pathlib, random, resource, sys, time
sys.path.insert(0, sys.argv[1])
import mapping
spec, store, count = pathlib.Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before = rss()
t = time.perf_counter()
ctx = mapping.Context(spec, store=store, read_only=True)
read = 0
for i in random.Random(7).sample(range(1, count + 1), 10_000):
    person = ctx.get("Person", i)
    company = person.related("company")
    read += len(person["email"] or "") + len(company["name"] if company else "")
    read += sum(len(phone["number"] or "") for phone in person.related("phones"))
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": elapsed, "extra": max(0, peak - before), "read": read}))
"""


ITERATE = r"""
import json, os, pathlib, resource, sys, time
sys.path.insert(0, sys.argv[1])
import mapping
spec, store = pathlib.Path(sys.argv[2]), sys.argv[3]
limit = {"default": {}, "none": {"cache_limit": None}}[sys.argv[4]]
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before = rss()
t = time.perf_counter()
ctx = mapping.Context(spec, store=store, read_only=True, **limit)
read = 0
for person in ctx.fetch("Person"):
    read += len(person["email"] or "")
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": elapsed, "extra": max(0, peak - before), "read": read, "held": ctx.cached_count}))
"""


TRANSACTION = r"""
import json, os, pathlib, resource, sys, time
sys.path.insert(0, sys.argv[1])
import mapping
kind, spec, store, page = sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4], sys.argv[5]
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
with open(page, "rb") as file:
    chunks = json.dumps(json.load(file)["people"]).encode()
before = rss()
t = time.perf_counter()
ctx = mapping.Context(spec, store=store, parser="simdjson")
if kind == "one change":
    ctx.begin()
    person = ctx.get("Person", 1)
    person["name"] = "changed in a transaction"
    ctx.commit()
    mapped = 1
else:
    mapped = ctx.import_chunked("person", chunks, chunk_size=1_000)
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": elapsed, "extra": max(0, peak - before), "mapped": mapped}))
"""


def transaction(kind, store, page):
    """A transaction in a fresh process: one change, or a chunked import of `page`."""
    result = run_script(TRANSACTION, BINDING, kind, SPEC, store, page)
    assert result["mapped"] == (1 if kind == "one change" else PAGE), result
    return result


def iterate_all(store, limit):
    """Every person of the store walked once, reading each one's email, with the default cache
    limit or none: time, extra peak memory, objects held at the end."""
    result = run_script(ITERATE, BINDING, SPEC, store, limit)
    assert result["read"] > 0, result
    return result


def working_set(store, count):
    result = run_script(WORKING, BINDING, SPEC, store, count)
    assert result["read"] > 0, result
    return result


def fetch_from(kind, store, low, high):
    return run_script(FETCH, BINDING, kind, SPEC, store, low, high)


def page_into(store, page):
    result = run_script(PAGE_IMPORT, BINDING, SPEC, store, page)
    assert result["mapped"] == PAGE, result
    return result


# Run in a process of its own: a parent that had read a whole payload would pass its peak memory on
# to every process it starts (Linux keeps a forked child's high-water mark across exec).
OWN_PAGE = r"""
import json, sys
payload, page, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(payload, "rb") as file:
    first = json.load(file)["people"][:count]
for person in first:
    person["name"] += " Jr"
with open(page, "w") as file:
    json.dump({"people": first}, file)
"""


def own_page(folder, count):
    """The first PAGE people of the payload a store of `count` people was made from, each name
    changed: a page the store already holds but for one attribute."""
    payload = people(folder, count)
    path = pathlib.Path(folder) / f"own_page_{count}.json"
    subprocess.run([sys.executable, "-c", OWN_PAGE, str(payload), str(path), str(PAGE)], check=True)
    payload.unlink()
    return path


def hand_page(database, page, count):
    """The page written by hand (`SQLITE_UPSERTS`) into `database`: its seconds."""
    result = upserts(page, database)
    assert result["people"] == count, result
    return result["seconds"][0]


def measure(folder, count, page):
    payload = people(folder, count)
    original = people_store(folder, count, payload)
    # The same people written by hand into the baseline's own schema: what SQLite itself pays for
    # the page into a store that size, beside what it pays into an empty one.
    hand = pathlib.Path(folder) / f"hand_{count}.db"
    hand_page(hand, payload, count)
    payload.unlink()
    own = own_page(folder, count)
    pages = {"empty": page, "full": page, "own empty": own, "own full": own}
    rounds = {kind: [] for kind in pages}
    copy = pathlib.Path(folder) / "copy.db"
    by_hand = {"full": [], "empty": []}
    for _ in range(ROUNDS):
        for kind in rounds:
            if kind.endswith("full"):
                fresh_copy(original, copy)
            else:
                remove_store(copy)
            rounds[kind].append(page_into(copy, pages[kind]))
        fresh_copy(hand, copy)
        by_hand["full"].append(hand_page(copy, page, count))
        remove_store(copy)
        by_hand["empty"].append(hand_page(copy, page, PAGE))
    hand.unlink()
    transactions = {"one change": [], "chunked": []}
    for _ in range(ROUNDS):
        for kind, results in transactions.items():
            fresh_copy(original, copy)
            results.append(transaction(kind, copy, own))
    own.unlink()
    fetches = {"libmapping": [], "sqlite3": []}
    low = count // 3
    high = low + count // 100 - 1
    for _ in range(ROUNDS):
        both = {kind: fetch_from(kind, original, low, high) for kind in fetches}
        assert both["libmapping"]["count"] == both["sqlite3"]["count"] == count // 100, both
        assert both["libmapping"]["first"] == both["sqlite3"]["first"], both
        for kind, result in both.items():
            fetches[kind].append(result["seconds"])
    working = [working_set(original, count) for _ in range(ROUNDS)]
    walks = {limit: iterate_all(original, limit) for limit in ("default", "none")}
    original.unlink()
    result = {kind: (median([r["seconds"] for r in results]), median([r["extra"] for r in results]))
              for kind, results in rounds.items()}
    result["by hand"] = (median(by_hand["full"]), median(by_hand["empty"]))
    result["fetch"] = (median(fetches["libmapping"]), median(fetches["sqlite3"]))
    result["working"] = (median([w["seconds"] for w in working]), median([w["extra"] for w in working]))
    result["walks"] = walks
    result["transactions"] = {kind: (median([r["seconds"] for r in results]), median([r["extra"] for r in results]))
                              for kind, results in transactions.items()}
    return result


def main():
    sizes = [100_000] + ([1_000_000] if os.environ.get("MAPPING_BENCH_1M") == "1" else [])
    print("# A large store in use\n")
    print(f"Fresh process: open the SQLite store and import a page of {PAGE:,} people (simdjson), committed; into an "
          f"empty store and into one holding N people (the page updates {PAGE:,} of them). Medians of {ROUNDS} processes. "
          f"By hand: the same page written by Python's sqlite3 with upserts (the baseline of bench/store.md) into a "
          f"database of the same N people in its own schema, and into an empty one: what SQLite itself pays for the "
          f"store's size. Each store is a copy flushed to disk before the run. Written by `bench/store_large.py`.\n")
    print("| people in the store | into it | into an empty store | ratio (target ≤ 1.3× at 1M) | extra peak memory, into it "
          "| into an empty store | by hand: into it | into an empty one | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    fetches = {}
    workings = {}
    walks = {}
    owns = {}
    transactions = {}
    with tempfile.TemporaryDirectory() as folder:
        page = people(folder, PAGE)
        for count in sizes:
            result = measure(folder, count, page)
            (full, full_memory), (empty, empty_memory) = result["full"], result["empty"]
            hand_full, hand_empty = result["by hand"]
            print(f"| {count:,} | {full * 1000:.0f} ms | {empty * 1000:.0f} ms | {full / empty:.2f}× | "
                  f"{full_memory / 2**20:.0f} MB | {empty_memory / 2**20:.0f} MB | {hand_full * 1000:.0f} ms | "
                  f"{hand_empty * 1000:.0f} ms | {hand_full / hand_empty:.2f}× |", flush=True)
            owns[count] = (result["own full"], result["own empty"])
            fetches[count] = result["fetch"]
            workings[count] = result["working"]
            walks[count] = result["walks"]
            transactions[count] = (result["transactions"], result["own full"])
    print(f"\nThe same with the store's own first {PAGE:,} people, every name changed (no one moves to another company). "
          f"Medians of {ROUNDS} processes.\n")
    print("| people in the store | into it | into an empty store | ratio | extra peak memory, into it | into an empty store |")
    print("|---:|---:|---:|---:|---:|---:|")
    for count, ((full, full_memory), (empty, empty_memory)) in owns.items():
        print(f"| {count:,} | {full * 1000:.0f} ms | {empty * 1000:.0f} ms | {full / empty:.2f}× | "
              f"{full_memory / 2**20:.0f} MB | {empty_memory / 2**20:.0f} MB |")
    print(f"\nFresh process: open the store, fetch the 1% of people in an id range and read their emails; beside "
          f"Python's sqlite3 running the same SELECT on the same file. Medians of {ROUNDS} processes.\n")
    print("| people in the store | libmapping | sqlite3 | ratio (target ≤ 3×) |")
    print("|---:|---:|---:|---:|")
    for count, (ours, theirs) in fetches.items():
        print(f"| {count:,} | {ours * 1000:.1f} ms | {theirs * 1000:.1f} ms | {ours / theirs:.1f}× |")
    print(f"\nFresh process: open the store and read 10,000 random people by id, with their email, their company's name "
          f"and their phones' numbers. Medians of {ROUNDS} processes.\n")
    print("| people in the store | time | extra peak memory (target ≤ 50 MB at 1M) |")
    print("|---:|---:|---:|")
    for count, (seconds, extra) in workings.items():
        print(f"| {count:,} | {seconds * 1000:.0f} ms | {extra / 2**20:.0f} MB |")

    print(f"\nFresh process: open the store and run a transaction: begin, change one person's name, commit; and import "
          f"the store's own first {PAGE:,} people (names changed) in chunks of 1,000, one transaction, beside the same "
          f"page imported whole (above). Medians of {ROUNDS} processes.\n")
    print("| people in the store | one change: time | extra peak memory | chunked page: time | extra peak memory | "
          "the page whole | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for count, (results, (whole, _)) in transactions.items():
        (change, change_memory), (chunked, chunked_memory) = results["one change"], results["chunked"]
        print(f"| {count:,} | {change * 1000:.1f} ms | {change_memory / 2**20:.1f} MB | {chunked * 1000:.0f} ms | "
              f"{chunked_memory / 2**20:.0f} MB | {whole * 1000:.0f} ms | {chunked / whole:.2f}× |")

    print(f"\nFresh process: open the store, fetch every person and read each one's email, once with the default "
          f"cache limit (100,000 objects) and once without a limit. One process each.\n")
    print("| people in the store | cache limit | time | extra peak memory (target ≤ 100 MB at 1M) | objects held at the end |")
    print("|---:|---|---:|---:|---:|")
    for count, results in walks.items():
        for limit, walk in results.items():
            print(f"| {count:,} | {limit} | {walk['seconds']:.1f} s | {walk['extra'] / 2**20:.0f} MB | {walk['held']:,} |")


if __name__ == "__main__":
    main()
