"""Open-to-first-answer on an SQLite store, by store size (`make bench` writes bench/open_curve.md):
in a fresh process, open the store, get one person by id and read their email — against the same
read through Python's own sqlite3 module on the same file (connect, one indexed SELECT). Time from
before the open to the answer, and the extra peak memory of the process for it (ru_maxrss after,
less the resident memory before the open). Medians of ROUNDS fresh processes, a random person each.

Sizes: 10k and 100k people (bench/people.py); 1M as well with MAPPING_BENCH_1M=1 (its store takes
minutes to make). Targets (issue 24): ≤ 10× sqlite3 at every size, the 1M figure ≤ 1.5× the 10k
one, and ≤ 10 MB extra peak memory at 1M. A store-backed context reads no row at open, so the curve
stays flat (before rows were read as touched, opening read every row and the curve grew with the
store)."""
import os
import random
import tempfile

from people_store import BINDING, SPEC, median, people_store, run_script

ROUNDS = 3

# One fresh process's first answer: `kind` is "libmapping" or "sqlite3".
ANSWER = r"""
import json, os, pathlib, resource, sys, time
sys.path.insert(0, sys.argv[1])
kind, spec, store, person = sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4], int(sys.argv[5])
if kind == "libmapping":
    import mapping
else:
    import sqlite3
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before = rss()
t = time.perf_counter()
if kind == "libmapping":
    ctx = mapping.Context(spec, store=store, read_only=True)
    email = ctx.get("Person", person)["email"]
else:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    email = db.execute('SELECT "email" FROM "Person" WHERE "id" = ?', (person,)).fetchone()[0]
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": elapsed, "extra": max(0, peak - before), "email": email}))
"""


def answer(kind, store, person):
    return run_script(ANSWER, BINDING, kind, SPEC, store, person)


def measure(folder, count):
    store = people_store(folder, count)
    rounds = {"libmapping": [], "sqlite3": []}
    chooser = random.Random(count)
    for _ in range(ROUNDS):
        person = chooser.randrange(count)
        both = {kind: answer(kind, store, person) for kind in rounds}
        assert both["libmapping"]["email"] == both["sqlite3"]["email"], both
        for kind, result in both.items():
            rounds[kind].append(result)
    return {kind: (median([r["seconds"] for r in results]), median([r["extra"] for r in results]))
            for kind, results in rounds.items()}


def main():
    sizes = [10_000, 100_000] + ([1_000_000] if os.environ.get("MAPPING_BENCH_1M") == "1" else [])
    print("# Open to first answer, by store size\n")
    print(f"Fresh process: open the SQLite store, get one person by id, read the email; beside Python's "
          f"sqlite3 on the same file. Medians of {ROUNDS} processes. Written by `bench/open_curve.py`.\n")
    print("| people in the store | libmapping | sqlite3 | ratio (target ≤ 10×) | libmapping extra peak memory | sqlite3 |")
    print("|---:|---:|---:|---:|---:|---:|")
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        for count in sizes:
            result = measure(folder, count)
            (ours, ours_memory), (theirs, theirs_memory) = result["libmapping"], result["sqlite3"]
            figures[count] = ours
            print(f"| {count:,} | {ours * 1000:.1f} ms | {theirs * 1000:.2f} ms | {ours / theirs:.0f}× | "
                  f"{ours_memory / 2**20:.1f} MB | {theirs_memory / 2**20:.1f} MB |", flush=True)
    largest = max(figures)
    print(f"\nThe {largest:,}-person figure is {figures[largest] / figures[10_000]:.1f}× the 10,000-person one "
          f"(target at 1M: ≤ 1.5×).")


if __name__ == "__main__":
    main()
