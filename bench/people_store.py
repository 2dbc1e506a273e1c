"""What the store benchmarks share: the people payload (bench/people.py) written to a file, and an
SQLite store made from it in a process of its own."""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SPEC = HERE / "people.spec.json"
BINDING = HERE.parent / "bindings" / "python" / "src"

# Makes the store: the people payload imported in one go (the store's own test of itself is elsewhere).
MAKE = r"""
import pathlib, sys
sys.path.insert(0, sys.argv[1])
import mapping
with mapping.Context(pathlib.Path(sys.argv[2]), store=sys.argv[3], parser="simdjson") as ctx:
    ctx.import_json("person", open(sys.argv[4], "rb").read())
    print(ctx.count("Person"))
"""


def run_script(script, *arguments):
    """Runs `script` (Python text) in a fresh process with `arguments`; what it prints, as JSON.
    A process of its own: its peak memory and its time are its own."""
    out = subprocess.run([sys.executable, "-c", script, *map(str, arguments)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def people(folder, count):
    """`count` people as JSON, in a file of `folder`."""
    path = pathlib.Path(folder) / f"people_{count}.json"
    with open(path, "w") as file:
        subprocess.run([sys.executable, str(HERE / "people.py"), str(count)], check=True, stdout=file)
    return path


def people_store(folder, count):
    """An SQLite store of `count` people, in `folder`."""
    payload = people(folder, count)
    store = pathlib.Path(folder) / f"people_{count}.db"
    made = subprocess.run([sys.executable, "-c", MAKE, str(BINDING), str(SPEC), str(store), str(payload)],
                          check=True, capture_output=True, text=True).stdout.strip()
    payload.unlink()
    assert int(made) == count, f"the store holds {made} people, not {count}"
    return store
