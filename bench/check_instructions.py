"""`make bench-check`: the instruction count of a fixed import, guarded against a committed baseline.

Callgrind counts instructions, not time, so the figure is the same on every run of the same build on
the same machine: a growth past the tolerance is a real change in the hot path, not noise. The
counted workloads are bench/instructions.c's: 10,000 people imported, then imported again (keys
"jansson" and "simdjson" of the baseline), the same people imported into a new SQLite store, then
again (keys "store/<parser>": the commit's writes, SQLite's own work included), the same people
imported once more by a new context on that store (keys "store-read/<parser>": every row read back
by identity, with the lists the mapping sets), and each real
payload of PAYLOADS imported twice the same way (keys "<payload>/<parser>"), on each parser the
library was built with. Swift's per-process
hash seed is fixed so dictionary layouts, and with them the count, repeat exactly.

usage: check_instructions.py BINARY SPEC BASELINE [--update]
Fails (exit 1) when a count grows by more than TOLERANCE over the baseline; --update rewrites the
baseline with this run's counts (commit it with the change that moved them, saying why).
"""
import json
import os
import subprocess
import sys
import tempfile

TOLERANCE = 0.03
PARSERS = ("jansson", "simdjson")
# Real payloads kept in the repository: (name, payload, spec, mapping), paths from its root.
# GitHub's events: large objects whose `payload` members are kept as `json` attributes.
PAYLOADS = (("github_events", "examples/data/github_events.json", "bench/specs/github_events.spec.json", "event"),)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def available(parser):
    """simdjson is optional in a build; ask the library rather than guess."""
    import ctypes
    library = ctypes.CDLL(os.environ["MAPPING_LIBRARY"])
    code = {"jansson": 1, "simdjson": 2}[parser]
    return library.mapping_parser_is_available(code) == 1


def count(binary, spec, parser, payload=()):
    """Instructions of one workload: the people (no `payload`), into a store (`("--store", path)`),
    into a store holding them, by a new context (`("--reopen", path)`), or (payload file, mapping) twice."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        env = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
        subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=measured_import",
                        f"--callgrind-out-file={out}", binary, spec, parser, *payload],
                       check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as file:
            for line in file:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1])
    raise RuntimeError(f"callgrind wrote no total for {parser}")


def main():
    binary, spec, baseline_path = sys.argv[1:4]
    update = "--update" in sys.argv[4:]
    baseline = {}
    if os.path.exists(baseline_path):
        with open(baseline_path) as file:
            baseline = json.load(file)
    parsers = [parser for parser in PARSERS if available(parser)]
    counts = {parser: count(binary, spec, parser) for parser in parsers}
    for parser in parsers:
        with tempfile.TemporaryDirectory() as folder:
            counts[f"store/{parser}"] = count(binary, spec, parser, ("--store", os.path.join(folder, "people.db")))
        with tempfile.TemporaryDirectory() as folder:
            counts[f"store-read/{parser}"] = count(binary, spec, parser, ("--reopen", os.path.join(folder, "people.db")))
    for name, payload, payload_spec, mapping in PAYLOADS:
        for parser in parsers:
            counts[f"{name}/{parser}"] = count(binary, os.path.join(ROOT, payload_spec), parser,
                                               (os.path.join(ROOT, payload), mapping))

    print("| workload | baseline | now | change |")
    print("|---|---:|---:|---:|")
    failed = []
    for workload, now in counts.items():
        before = baseline.get(workload)
        if before is None:
            print(f"| {workload} | none | {now:,} | |")
            if not update:
                failed.append(f"{workload}: no baseline (run `make bench-check UPDATE=1`)")
            continue
        change = now / before - 1
        print(f"| {workload} | {before:,} | {now:,} | {change:+.2%} |")
        if change > TOLERANCE:
            failed.append(f"{workload}: {change:+.2%} instructions (limit +{TOLERANCE:.0%})")

    if update:
        with open(baseline_path, "w") as file:
            json.dump(counts, file, indent=2, sort_keys=True)
            file.write("\n")
        print(f"baseline written to {baseline_path}")
        return 0
    for failure in failed:
        print(f"bench-check FAILED: {failure}", file=sys.stderr)
    if not failed:
        print(f"bench-check: within +{TOLERANCE:.0%} of the baseline")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
