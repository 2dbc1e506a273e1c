"""A page into a large store against the same page into an empty one (`make bench` writes
bench/store_page.md): in a fresh process, open an SQLite store and import a page of 10,000 people
(bench/people.py, simdjson), committed — once into an empty store, once into a store that already
holds N people (the page updates 10,000 of them and their companies and phones). Time from before
the open to the end of the import, and the extra peak memory for it; medians of ROUNDS processes,
each on a fresh copy of the store.

Sizes: 100k people; 1M as well with MAPPING_BENCH_1M=1 (its store takes minutes to make). Target
(issue 24): the page into the 1M store ≤ 1.3× the page into an empty store. Reading only the rows an
import touches is what makes the two comparable: before, opening read the whole store first."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from people_store import BINDING, SPEC, median, people, people_store

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


def page_into(store, page):
    out = subprocess.run([sys.executable, "-c", PAGE_IMPORT, str(BINDING), str(SPEC), str(store), str(page)],
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    assert result["mapped"] == PAGE, result
    return result


def measure(folder, count, page):
    original = people_store(folder, count)
    rounds = {"empty": [], "full": []}
    copy = pathlib.Path(folder) / "copy.db"
    for _ in range(ROUNDS):
        for kind in rounds:
            for suffix in ("", "-wal", "-shm"):
                pathlib.Path(str(copy) + suffix).unlink(missing_ok=True)
            if kind == "full":
                shutil.copy(original, copy)
            rounds[kind].append(page_into(copy, page))
    original.unlink()
    return {kind: (median([r["seconds"] for r in results]), median([r["extra"] for r in results]))
            for kind, results in rounds.items()}


def main():
    sizes = [100_000] + ([1_000_000] if os.environ.get("MAPPING_BENCH_1M") == "1" else [])
    print("# A page into a large store\n")
    print(f"Fresh process: open the SQLite store and import a page of {PAGE:,} people (simdjson), committed; into an "
          f"empty store and into one holding N people (the page updates {PAGE:,} of them). Medians of {ROUNDS} processes. "
          f"Written by `bench/store_page.py`.\n")
    print("| people in the store | into it | into an empty store | ratio (target ≤ 1.3× at 1M) | extra peak memory, into it | into an empty store |")
    print("|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        page = people(folder, PAGE)
        for count in sizes:
            result = measure(folder, count, page)
            (full, full_memory), (empty, empty_memory) = result["full"], result["empty"]
            print(f"| {count:,} | {full * 1000:.0f} ms | {empty * 1000:.0f} ms | {full / empty:.2f}× | "
                  f"{full_memory / 2**20:.0f} MB | {empty_memory / 2**20:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()
