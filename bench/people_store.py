"""What the store benchmarks share: the people payload (bench/people.py) written to a file, an
SQLite store made from it in a process of its own, the same import written by hand with Python's
sqlite3 (the baseline), and a store's copy made for one run."""
import json
import os
import pathlib
import shutil
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


# The same import written by hand: the fastest JSON parser at hand, Python's sqlite3 on a schema keyed
# by the payload's own identities (so no surrogate key and no second index per table), one
# transaction, prepared upserts through executemany, WAL with synchronous=NORMAL as the store uses.
# Dates stay text (no conversion). Arguments: the payload, the database (made if new, else written
# into) and how many times to write the payload (a second run upserts every row again); prints
# each run's seconds and the people the database holds.
SQLITE_UPSERTS = r"""
import json, os, sqlite3, sys, time
try:
    import orjson
    loads = orjson.loads
except ImportError:
    loads = json.loads
data_path, store, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(data_path, "rb").read()
db = sqlite3.connect(store, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
for statement in (
        "CREATE TABLE IF NOT EXISTS company (id INTEGER PRIMARY KEY, name TEXT, country TEXT)",
        "CREATE TABLE IF NOT EXISTS person (id INTEGER PRIMARY KEY, name TEXT, email TEXT, birthdate TEXT, score REAL, "
        "active INTEGER, company_id INTEGER, company INTEGER REFERENCES company(id))",
        "CREATE INDEX IF NOT EXISTS person_company ON person (company)",
        "CREATE TABLE IF NOT EXISTS phone (number TEXT PRIMARY KEY, type TEXT, owner INTEGER REFERENCES person(id), "
        "position INTEGER)",
        "CREATE INDEX IF NOT EXISTS phone_owner ON phone (owner, position)"):
    db.execute(statement)
COMPANY = "INSERT INTO company VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, country = excluded.country"
PERSON = ("INSERT INTO person VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
          "email = excluded.email, birthdate = excluded.birthdate, score = excluded.score, active = excluded.active, "
          "company_id = excluded.company_id, company = coalesce(excluded.company, company)")
PHONE = ("INSERT INTO phone VALUES (?, ?, ?, ?) ON CONFLICT (number) DO UPDATE SET type = excluded.type, "
         "owner = excluded.owner, position = excluded.position")
def write():
    people = loads(data)["people"]
    db.execute("BEGIN")
    db.executemany(COMPANY, ((c["id"], c["name"], c["country"]) for p in people if (c := p.get("company")) is not None))
    db.executemany(PERSON, ((p["id"], p["name"], p["email"], p["birthdate"], p["score"], p["active"], p["company_id"],
                             c["id"] if (c := p.get("company")) is not None else None) for p in people))
    db.executemany(PHONE, ((f["number"], f["type"], p["id"], i) for p in people for i, f in enumerate(p["phones"])))
    db.execute("COMMIT")
seconds = []
for _ in range(runs):
    t = time.perf_counter()
    write()
    seconds.append(time.perf_counter() - t)
print(json.dumps({"seconds": seconds, "people": db.execute("SELECT count(*) FROM person").fetchone()[0]}))
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


def people_store(folder, count, payload=None):
    """An SQLite store of `count` people, in `folder`: made from `payload` when given (left in place),
    else from a payload made for it (removed after)."""
    made_here = payload is None
    payload = payload or people(folder, count)
    store = pathlib.Path(folder) / f"people_{count}.db"
    made = subprocess.run([sys.executable, "-c", MAKE, str(BINDING), str(SPEC), str(store), str(payload)],
                          check=True, capture_output=True, text=True).stdout.strip()
    if made_here:
        payload.unlink()
    assert int(made) == count, f"the store holds {made} people, not {count}"
    return store


def upserts(payload, database, runs=1):
    """The hand-written import (`SQLITE_UPSERTS`) of `payload` into `database`, `runs` times, in a
    process of its own: each run's seconds and the people the database holds."""
    return run_script(SQLITE_UPSERTS, payload, database, runs)


def remove_store(path):
    """Removes an SQLite file and its journal files, where they exist."""
    for suffix in ("", "-wal", "-shm"):
        pathlib.Path(str(path) + suffix).unlink(missing_ok=True)


def fresh_copy(original, copy):
    """`original` copied to `copy` (its journal files removed) and flushed to disk, so that a run on
    the copy does not pay for writing back the copy itself: a commit's checkpoint syncs the file, and
    a file copied a moment ago would have all its pages still to write (half the time of a page into
    a 1M store on disk, measured), which no program opening its own store pays."""
    remove_store(copy)
    shutil.copyfile(original, copy)
    with open(copy, "rb+") as file:
        os.fsync(file.fileno())
