"""Many processes, one graph (`make bench` writes bench/scaling.md): the people workload
(bench/people.py, 1M people by default, MAPPING_SCALING_PEOPLE to change it) cut into pages of
10,000, imported as one commit per page by 1, 2 and 4 processes into one PostgreSQL store (each
process a disjoint share of the pages), beside one process importing them all into an SQLite store.
Each process reads the rows it touches (identities resolved in set queries); before each page it
applies what the others committed to the rows it holds (the companies are shared by all slices). Reported: wall time from the
first commit to the last, throughput, and per-commit latency (the import call, its write and the
refresh before it). The server is a throwaway one (Tests/postgres/server.sh) on a Unix socket, with
PostgreSQL's default durability (fsync on); SQLite runs with the store's default (WAL, NORMAL)."""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SPEC = os.path.join(HERE, "people.spec.json")
PEOPLE = int(os.environ.get("MAPPING_SCALING_PEOPLE", "1000000"))
PAGE = 10_000

WORKER = r"""
import json, os, pathlib, sys, time
sys.path.insert(0, sys.argv[1])
import mapping
spec, store, go, follow = sys.argv[2:6]
pages = sys.argv[6:]
with mapping.Context(pathlib.Path(spec), parser="simdjson" if "simdjson" in mapping.available_parsers() else None, store=store,
                     follow=follow == "follow") as ctx:
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    latencies, refreshes = [], []
    start = time.perf_counter()
    try:
        for path in pages:
            data = open(path, "rb").read()
            t = time.perf_counter()
            ctx.refresh()  # what the others committed: timed apart from this process's own commit
            refreshes.append(time.perf_counter() - t)
            t = time.perf_counter()
            ctx.import_json("person", data)
            latencies.append(time.perf_counter() - t)
    finally:
        open(go + "." + str(os.getpid()), "w").close()  # so that the others stop waiting for this one
    end = time.perf_counter()
    # Once every process is done, the others' last commits: each should end with the whole graph.
    while len([n for n in os.listdir(os.path.dirname(go)) if n.startswith("go.")]) < int(os.environ["WORKERS"]):
        time.sleep(0.01)
    ctx.refresh()
    print(json.dumps({"start": start, "end": end, "latencies": latencies, "refreshes": refreshes, "people": ctx.count("Person")}))
"""


OPEN = r"""
import json, os, pathlib, sys, time
sys.path.insert(0, sys.argv[1])
import mapping
t = time.perf_counter()
ctx = mapping.Context(pathlib.Path(sys.argv[2]), store=sys.argv[3])
people = ctx.count("Person")
took = time.perf_counter() - t
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
print(json.dumps({"seconds": took, "peak": peak, "people": people}))
"""


def open_store(store):
    """Opening a store in a new process and counting its people (in the database): time, peak memory."""
    binding = os.path.join(ROOT, "bindings", "python", "src")
    out = subprocess.run([sys.executable, "-c", OPEN, binding, SPEC, store], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def cpu_times():
    """The machine's CPU time so far, busy and in all (seconds summed over its cores), from /proc/stat."""
    with open("/proc/stat") as file:
        fields = [int(x) for x in file.readline().split()[1:]]
    ticks = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and waiting for I/O
    return (sum(fields) - idle) / ticks, sum(fields) / ticks


def run(store, shares, follow=True):
    binding = os.path.join(ROOT, "bindings", "python", "src")
    with tempfile.TemporaryDirectory() as folder:
        go = os.path.join(folder, "go")
        environment = dict(os.environ, WORKERS=str(len(shares)))
        workers = [subprocess.Popen([sys.executable, "-c", WORKER, binding, SPEC, store, go,
                                     "follow" if follow else "no-follow", *share],
                                    stdout=subprocess.PIPE, text=True, env=environment) for share in shares]
        for worker in workers:
            assert worker.stdout.readline().strip() == "ready"
        busy_before, _ = cpu_times()
        open(go, "w").close()
        results = []
        for worker in workers:
            out, _ = worker.communicate()
            assert worker.returncode == 0
            results.append(json.loads(out))
        busy_after, _ = cpu_times()
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    latencies = [latency for r in results for latency in r["latencies"]]
    refreshes = [refresh for r in results for refresh in r["refreshes"]]
    # Every process of the machine counts: the workers and the database server (the machine is quiet
    # otherwise when the bench runs). The readiness wait before `go` and the exits after are short.
    busy = (busy_after - busy_before) / wall
    return {"wall": wall, "busy": busy, "rate": PEOPLE / wall, "p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95),
            "max": max(latencies), "refresh": percentile(refreshes, 0.5), "refreshes": sum(refreshes),
            "people": [r["people"] for r in results]}


def main():
    sys.path.insert(0, HERE)
    import people as generator
    with tempfile.TemporaryDirectory() as folder:
        everyone = generator.people(PEOPLE)["people"]
        pages = []
        for number, start in enumerate(range(0, PEOPLE, PAGE)):
            path = os.path.join(folder, f"page{number}.json")
            with open(path, "w") as file:
                json.dump({"people": everyone[start:start + PAGE]}, file, separators=(",", ":"))
            pages.append(path)
        del everyone
        # The server runs as an unprivileged user when this runs as root: its folder is one of its own
        # (a TemporaryDirectory is closed to other users).
        server = tempfile.mkdtemp(prefix="mapping-pg.")
        os.chmod(server, 0o755)
        uri = subprocess.run(["bash", os.path.join(ROOT, "Tests", "postgres", "server.sh"), "start", server],
                             check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
        rows = []
        try:
            sqlite = run(os.path.join(folder, "people.db"), [pages])
            rows.append(("SQLite, 1 process", sqlite))
            opens = [("SQLite", open_store(os.path.join(folder, "people.db")))]
            for follow in (True, False):
                for processes in (1, 2, 4):
                    store = f"{uri}&schema=scaling{processes}{'' if follow else '_alone'}"
                    name = f"PostgreSQL, {processes} process{'es' if processes > 1 else ''}" + ("" if follow else ", not following")
                    rows.append((name, run(store, [pages[w::processes] for w in range(processes)], follow)))
                    if processes == 1 and follow:
                        opens.append(("PostgreSQL", open_store(store)))
        finally:
            subprocess.run(["bash", os.path.join(ROOT, "Tests", "postgres", "server.sh"), "stop", server], check=False)
    print(f"# Many processes, one graph: {PEOPLE:,} people in pages of {PAGE:,}, one commit per page\n")
    print("Each PostgreSQL process imports a disjoint share of the pages, reading the rows it touches: before each page it")
    print("applies what the others committed to the rows it holds (`refresh`, timed apart: the companies, which every")
    print("slice shares). Commit latency is one page's import call: resolving its identities, mapping 10,000 people and")
    print("writing them. Wall time runs from the first page to the last, refreshes included. Processes \"not following\"")
    print("open with follow=False (MAPPING_OPEN_NO_FOLLOW): they apply nothing of the others' commits. CPU busy: the")
    print(f"machine's cores kept busy over the wall time, by the processes and the server together ({os.cpu_count()} cores here).\n")
    print("| store | wall time | people/s | vs SQLite | CPU busy | commit p50 | commit p95 | commit max | refresh p50 | refreshing, all processes | people each process counts at the end |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    base = rows[0][1]["rate"]
    for name, r in rows:
        print(f"| {name} | {r['wall']:.1f} s | {r['rate']:,.0f} | {r['rate'] / base:.2f}× | {r['busy']:.2f} | {r['p50'] * 1000:.0f} ms "
              f"| {r['p95'] * 1000:.0f} ms | {r['max'] * 1000:.0f} ms | {r['refresh'] * 1000:.0f} ms | {r['refreshes']:.1f} s "
              f"| {', '.join(f'{n:,}' for n in r['people'])} |")
    rate = {name: r["rate"] for name, r in rows}
    one = dict(rows)["PostgreSQL, 1 process"]
    print(f"\nFollowing processes vs one: 2 processes {rate['PostgreSQL, 2 processes'] / rate['PostgreSQL, 1 process']:.2f}×, "
          f"4 processes {rate['PostgreSQL, 4 processes'] / rate['PostgreSQL, 1 process']:.2f}× the people/s. One process keeps "
          f"{one['busy']:.2f} of the {os.cpu_count()} cores busy (itself and the server), so on this machine more processes can "
          f"add at most {os.cpu_count() / one['busy']:.2f}× by using the idle ones.")
    print(f"\nOpening the store of {PEOPLE:,} people in a new process and counting them (no row is read):\n")
    print("| store | time | peak memory | people |")
    print("|---|---:|---:|---:|")
    for name, o in opens:
        print(f"| {name} | {o['seconds']:.1f} s | {o['peak'] / 1e6:,.0f} MB | {o['people']:,} |")


if __name__ == "__main__":
    main()
