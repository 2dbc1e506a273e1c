"""Context(spec, store="postgresql://…"): one graph shared by many processes through a PostgreSQL
schema. Needs a server: MAPPING_TEST_POSTGRES names one (`make test-postgres` starts a throwaway one
and sets it, with MAPPING_REQUIRE_POSTGRES=1 so that these tests fail rather than skip without it).
Each test works in a schema of its own."""
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from decimal import Decimal

import pytest

import mapping

SERVER = os.environ.get("MAPPING_TEST_POSTGRES")
if not SERVER:
    if os.environ.get("MAPPING_REQUIRE_POSTGRES") == "1":
        raise RuntimeError("MAPPING_REQUIRE_POSTGRES=1 but MAPPING_TEST_POSTGRES names no server")
    pytest.skip("no PostgreSQL server: set MAPPING_TEST_POSTGRES (make test-postgres does)", allow_module_level=True)

SPEC = {
    "entities": {
        "Person": {
            "attributes": {"id": "integer", "name": "string", "born": "date", "score": "double", "active": "boolean",
                           "weight": "decimal", "extra": "json"},
            "relationships": {
                "company": {"entity": "Company", "inverse": "employees"},
                "phones": {"entity": "Phone", "toMany": True, "ordered": True, "inverse": "owner"},
                "tags": {"entity": "Tag", "toMany": True, "inverse": "people"},
            },
        },
        "Company": {
            "attributes": {"id": "integer", "name": "string"},
            "relationships": {"employees": {"entity": "Person", "toMany": True, "inverse": "company"}},
        },
        "Phone": {
            "attributes": {"number": "string", "kind": "string"}, "identification": "number",
            "relationships": {"owner": {"entity": "Person", "inverse": "phones"}},
        },
        "Tag": {
            "attributes": {"name": "string"}, "identification": "name",
            "relationships": {"people": {"entity": "Person", "toMany": True, "inverse": "tags"}},
        },
    },
    "mappings": {
        "person": {
            "entity": "Person", "rootPath": "people",
            "attributes": {"id": "id", "name": "name", "born": "born", "score": "score", "active": "active",
                           "weight": "weight", "extra": "extra"},
            "relationships": {"company": {"mapping": "company"}, "phones": {"mapping": "phone"},
                              "tags": {"mapping": "tag"}},
        },
        "company": {"entity": "Company", "attributes": {"id": "id", "name": "name"}},
        "phone": {"entity": "Phone", "attributes": {"number": "number", "kind": "kind"}},
        "tag": {"entity": "Tag", "attributes": {"name": "name"}},
    },
}
SPEC_TEXT = json.dumps(SPEC)
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


def person(i):
    """Person `i`, the same on every page it appears on: every attribute type, a company shared with
    others, 0-2 phones and 0-3 tags shared with others."""
    rnd = random.Random(i)
    return {"id": i, "name": f"P{i} {rnd.choice(['Ada', 'Bo', 'Cy', 'Dee'])} \"q\" \\ ü",
            "born": f"19{50 + i % 50}-0{1 + i % 9}-1{i % 10}T0{i % 10}:30:00.123456Z",
            "score": rnd.random() * 100, "active": i % 3 != 0,
            "weight": f"{i}.{i:04d}00000000000000000000001", "extra": {"n": i, "list": [i, str(i), None]},
            "company": {"id": i % 7, "name": f"Company {i % 7}"},
            "phones": [{"number": f"+1-{i}-{p}", "kind": ["home", "work"][p]} for p in range(i % 3)],
            "tags": [{"name": f"t{(i + k) % 11}"} for k in range(i % 4)]}


def page(start, size):
    return json.dumps({"people": [person(i) for i in range(start, start + size)]}).encode()


@pytest.fixture
def store():
    """A URI naming a schema no other test uses."""
    return f"{SERVER}&schema=t_{uuid.uuid4().hex[:12]}"


def sql(uri, query):
    """Runs `query` through psql in the store's schema; its rows as lists of text."""
    base, schema = uri.rsplit("&schema=", 1)
    out = subprocess.run(["psql", base, "-XAtq", "-v", "ON_ERROR_STOP=1", "-F", "\t",
                          "-c", f'SET search_path TO "{schema}"', "-c", query],
                         check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def graph(ctx):
    """Every object with its values and relationships; to-manys as sorted sets (processes that add
    to one at once keep all their members, in an order that depends on who wrote first)."""
    # Numbers kept as their text: a decimal must come back with every digit.
    people = json.loads(ctx.serialize("person", ctx.all("Person"), include_nulls=True), parse_float=str)
    people = people["people"] if isinstance(people, dict) else people
    for entry in people:
        entry["phones"] = sorted(entry["phones"], key=lambda phone: phone["number"])
        entry["tags"] = sorted(tag["name"] for tag in entry["tags"])
    companies = {c["id"]: sorted(p["id"] for p in c.related("employees")) for c in ctx.all("Company")}
    tags = {t["name"]: sorted(p["id"] for p in t.related("people")) for t in ctx.all("Tag")}
    owners = {p["number"]: p.related("owner")["id"] for p in ctx.all("Phone")}
    return {"people": sorted(people, key=lambda entry: entry["id"]), "companies": companies, "tags": tags,
            "phones": owners}


def run(script, *arguments, **options):
    return subprocess.run([sys.executable, "-c", script, *arguments], env=ENV, **options)


DUMP = """
import json, sys
sys.path.insert(0, sys.argv[3])
import test_postgres, mapping
with mapping.Context(sys.argv[1], store=sys.argv[2]) as ctx:
    print(json.dumps(test_postgres.graph(ctx), sort_keys=True))
"""


def dump_in_new_process(uri):
    out = run(DUMP, SPEC_TEXT, uri, os.path.dirname(__file__), check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def serial_graph(pages):
    with mapping.Context(SPEC) as ctx:
        for start, size in pages:
            ctx.import_json("person", page(start, size))
        return json.loads(json.dumps(graph(ctx), sort_keys=True))


def test_a_store_written_through_postgresql_reads_back_identically_in_a_new_process(store):
    with mapping.Context(SPEC, store=store) as ctx, mapping.Context(SPEC) as memory:
        for target in (ctx, memory):
            target.import_json("person", page(0, 60))
            target.get("Person", 5)["weight"] = "98765432109876543210.0123456789"
            target.delete(target.get("Phone", "+1-4-0"))
            target.get("Person", 7).set_related("tags", [target.get("Tag", "t1"), target.get("Tag", "t9")])
        expected = json.loads(json.dumps(graph(memory), sort_keys=True))
        assert json.loads(json.dumps(graph(ctx), sort_keys=True)) == expected
    again = dump_in_new_process(store)
    assert again == expected
    assert again["people"][5]["weight"] == "98765432109876543210.0123456789"
    # The schema reads like the spec: one row per identity, a _version per row, join tables.
    assert sql(store, 'SELECT count(*), count(DISTINCT id), min("_version") FROM "Person"') == [["60", "60", "1"]]
    assert sql(store, 'SELECT "_version" FROM "Person" WHERE id = 5') == [["2"]]
    assert sql(store, 'SELECT t.name FROM "Person_tags" j JOIN "Tag" t ON t._id = j.target '
                      'JOIN "Person" p ON p._id = j.owner WHERE p.id = 7 ORDER BY j.position') == [["t1"], ["t9"]]


IMPORTER = """
import json, os, sys, time
sys.path.insert(0, sys.argv[3])
import test_postgres, mapping
pages = [tuple(map(int, item.split(":"))) for item in sys.argv[4].split(",")]
go = sys.argv[5]
with mapping.Context(sys.argv[1], store=sys.argv[2]) as ctx:
    while not os.path.exists(go):
        time.sleep(0.005)
    try:
        for start, size in pages:
            ctx.import_json("person", test_postgres.page(start, size))
    finally:
        open(go + "." + str(os.getpid()), "w").close()
    # Once every importer is done, this graph is brought up to theirs.
    deadline = time.monotonic() + 120
    while len([n for n in os.listdir(os.path.dirname(go)) if n.startswith(os.path.basename(go) + ".")]) < 4:
        assert time.monotonic() < deadline, "the other importers never finished"
        time.sleep(0.01)
    ctx.refresh()
    print(json.dumps(test_postgres.graph(ctx), sort_keys=True))
"""


def test_four_processes_importing_overlapping_pages_end_with_the_serial_graph(store, tmp_path):
    # Pages of 40 people every 25: each overlaps the next by 15, and every process imports pages
    # that others import too, in its own order.
    pages = [(start, 40) for start in range(0, 400, 25)]
    with mapping.Context(SPEC, store=store):
        pass  # creates the schema, so the four start on an existing store
    shares = [pages[w::2] if w < 2 else list(reversed(pages[w - 2::2])) for w in range(4)]
    go = tmp_path / "go"
    workers = [subprocess.Popen([sys.executable, "-c", IMPORTER, SPEC_TEXT, store, os.path.dirname(__file__),
                                 ",".join(f"{s}:{n}" for s, n in share), str(go)], env=ENV,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for share in shares]
    time.sleep(0.3)
    go.touch()
    results = [worker.communicate(timeout=300) for worker in workers]
    for worker, (out, err) in zip(workers, results):
        assert worker.returncode == 0, err
    expected = serial_graph(pages)
    assert len(expected["people"]) == 415
    # Every process's live graph, brought up to the others' commits, is the serial one...
    for out, _ in results:
        assert json.loads(out) == expected
    # ...and so is the database, read by a new process.
    assert dump_in_new_process(store) == expected
    assert sql(store, 'SELECT count(*), count(DISTINCT id) FROM "Person"') == [["415", "415"]]
    assert sql(store, 'SELECT count(*), count(DISTINCT name) FROM "Tag"') == [["11", "11"]]
    assert sql(store, 'SELECT count(*) FROM "Phone"') == [[str(len(expected["phones"]))]]
    assert sql(store, 'SELECT count(*) FROM (SELECT owner, target FROM "Tag_people" GROUP BY 1, 2 HAVING count(*) > 1) d') == [["0"]]


KILLED = """
import sys
sys.path.insert(0, sys.argv[3])
import test_postgres, mapping
with mapping.Context(sys.argv[1], store=sys.argv[2]) as ctx:
    print("ready", flush=True)
    sys.stdin.readline()
    ctx.import_json("person", test_postgres.page(1000, 20000))
    print("committed", flush=True)
"""


def test_a_process_killed_during_a_commit_leaves_no_part_of_it(store):
    with mapping.Context(SPEC, store=store) as ctx:
        ctx.import_json("person", page(0, 10))
    tagged = store + "&application_name=killed_commit"
    child = subprocess.Popen([sys.executable, "-c", KILLED, SPEC_TEXT, tagged, os.path.dirname(__file__)], env=ENV,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    child.stdin.write("go\n")
    child.stdin.flush()
    # Killed once its commit's transaction has written rows (its backend is inside the transaction).
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        busy = sql(store, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'killed_commit' "
                          "AND xact_start IS NOT NULL AND query ILIKE 'INSERT%'")
        if busy != [["0"]]:
            break
        time.sleep(0.002)
    else:
        pytest.fail("the child's commit never started")
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL
    # Its backend ends its transaction when the connection drops: nothing of it stays.
    deadline = time.monotonic() + 10
    while sql(store, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'killed_commit'") != [["0"]]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert sql(store, 'SELECT count(*), max(id) FROM "Person"') == [["10", "9"]]
    assert sql(store, 'SELECT count(*) FROM "Phone"') == [[str(sum(i % 3 for i in range(10)))]]
    reopened = dump_in_new_process(store)
    assert [entry["id"] for entry in reopened["people"]] == list(range(10))


def test_a_conflicting_update_is_reported_and_writes_nothing(store):
    with mapping.Context(SPEC, store=store) as mine, mapping.Context(SPEC, store=store) as theirs:
        mine.import_json("person", page(0, 5))
        theirs.refresh()
        mine.begin()
        mine.get("Person", 1)["name"] = "mine"
        mine.get("Person", 2)["name"] = "also mine"
        theirs.get("Person", 1)["name"] = "theirs"
        with pytest.raises(mapping.ConflictError, match="another process changed"):
            mine.commit()
        # All or nothing: Person 2 kept its name in the database too.
        assert sql(store, 'SELECT id, name, "_version" FROM "Person" WHERE id IN (1, 2) ORDER BY id') == [
            ["1", "theirs", "2"], ["2", person(2)["name"], "1"]]
        # The next call brings this graph up to the database: the change can be made again on it.
        assert mine.get("Person", 1)["name"] == "theirs"
        assert mine.get("Person", 2)["name"] == person(2)["name"]
        mine.get("Person", 1)["name"] = "mine, after theirs"
        assert sql(store, 'SELECT name, "_version" FROM "Person" WHERE id = 1') == [["mine, after theirs", "3"]]
        # Deleting what another process changed is a conflict as well.
        mine.begin()
        mine.delete(mine.get("Person", 3))
        theirs.get("Person", 3)["active"] = True
        with pytest.raises(mapping.ConflictError):
            mine.commit()
        assert sql(store, 'SELECT count(*) FROM "Person" WHERE id = 3') == [["1"]]
        assert mine.get("Person", 3)["active"] is True


def test_an_evicted_row_is_read_again_as_another_process_left_it(store):
    """With a cache limit of 2, what this context read three calls ago is evicted: another
    context's change to it is not applied (its announcement is dropped), yet reading it again
    shows the change, and writing it over is no conflict (it was read at the new version). A row
    still held follows the other's commits as before."""
    with mapping.Context(SPEC, store=store, cache_limit=2) as mine, mapping.Context(SPEC, store=store) as theirs:
        theirs.import_json("person", page(0, 6))
        first = mine.get("Person", 1)
        assert first["name"] == person(1)["name"]
        for identity in (2, 3, 4):
            mine.get("Person", identity)["name"]
        assert mine.cached_count <= 2
        theirs.get("Person", 1)["name"] = "changed while evicted"
        theirs.get("Person", 4)["name"] = "changed while held"
        mine.refresh()
        assert first["name"] == "changed while evicted"
        assert mine.get("Person", 1) == first
        first["name"] = "mine, no conflict"
        assert sql(store, 'SELECT name, "_version" FROM "Person" WHERE id = 1') == [["mine, no conflict", "3"]]
        assert mine.get("Person", 4)["name"] == "changed while held"


def test_two_processes_adding_one_new_identity_end_with_one_row(store):
    with mapping.Context(SPEC, store=store) as first, mapping.Context(SPEC, store=store) as second:
        first.begin()
        second.begin()
        first.create("Company", id=500, name="first")
        second.create("Company", id=500, name="second")
        second.get("Company", 500).set_related("employees", [second.create("Person", id=9000, name="hired")])
        first.commit()
        second.commit()  # resolves to the row the first inserted, and writes its values there
        assert sql(store, 'SELECT count(*), max(name), max("_version") FROM "Company" WHERE id = 500') == [["1", "second", "2"]]
        assert sql(store, 'SELECT c.id FROM "Person" p JOIN "Company" c ON c._id = p.company WHERE p.id = 9000') == [["500"]]
        first.refresh()
        company = first.get("Company", 500)
        assert company["name"] == "second"
        assert [p["id"] for p in company.related("employees")] == [9000]


def test_a_concurrent_import_of_a_new_identity_keeps_what_its_payload_lacks(store):
    """Each context imports person 1 as new, the second without the keys the first set: as in
    either serial order, a key the payload lacks leaves the stored value (and link) alone."""
    with mapping.Context(SPEC, store=store, follow=False) as first, \
            mapping.Context(SPEC, store=store, follow=False) as second:
        assert second.count("Person") == 0  # second's graph has no person 1 when it imports
        first.import_json("person", json.dumps({"people": [
            {"id": 1, "name": "from first", "score": 1.5, "company": {"id": 9, "name": "Nine"}, "tags": [{"name": "t"}]}]}))
        second.import_json("person", json.dumps({"people": [{"id": 1, "name": "from second"}]}))
    with mapping.Context(SPEC, store=store) as reader:
        person = reader.get("Person", 1)
        assert person["name"] == "from second"
        assert person["score"] == 1.5
        assert person.related("company")["id"] == 9
        assert [t["name"] for t in person.related("tags")] == ["t"]
        assert reader.count("Person") == 1
    assert sql(store, 'SELECT count(*) FROM "Person" WHERE id = 1') == [["1"]]


NOTICES = """
import sys
sys.path.insert(0, sys.argv[3])
import mapping
for _ in range(2):
    with mapping.Context(sys.argv[1], store=sys.argv[2]) as ctx:
        ctx.import_json("animal", [{"id": 1, "name": "rex", "kind": "dog"}])
print("opened", flush=True)
"""


def test_the_servers_notices_do_not_reach_the_programs_stderr(store):
    # Dog inherits Animal's indexed name: creating the schema asks for that index twice, and the
    # server answers the second with "NOTICE: relation ... already exists, skipping".
    spec = {"entities": {"Animal": {"attributes": {"id": "integer", "name": {"type": "string", "indexed": True}}},
                         "Dog": {"parent": "Animal", "attributes": {"kind": "string"}}},
            "mappings": {"animal": {"entity": "Dog", "attributes": {"id": "id", "name": "name", "kind": "kind"}}}}
    out = run(NOTICES, json.dumps(spec), store, os.path.dirname(__file__), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "opened\n"
    assert out.stderr == ""


def test_the_servers_notices_go_to_the_warning_handler_which_may_call_the_context(store):
    spec = {"entities": {"Animal": {"attributes": {"id": "integer", "name": "string"}}},
            "mappings": {"animal": {"entity": "Animal", "attributes": {"id": "id", "name": "name"}}}}
    schema = store.rsplit("schema=", 1)[1]
    with mapping.Context(spec, store=store) as ctx:
        ctx.import_json("animal", [{"id": 1, "name": "rex"}])
    # The server warns of each new animal.
    sql(store, "CREATE FUNCTION shout() RETURNS trigger AS $$ BEGIN RAISE WARNING 'checked %', NEW.id; RETURN NEW; END $$ "
               "LANGUAGE plpgsql")
    sql(store, 'CREATE TRIGGER shout BEFORE INSERT ON "Animal" FOR EACH ROW EXECUTE FUNCTION shout()')
    calls = []
    with mapping.Context(spec, store=store) as ctx:
        ctx.import_json("animal", [{"id": 2, "name": "a"}])  # kept until a handler takes it

        def handler(message):
            calls.append(message)
            calls.append(ctx.count("Animal"))  # after the call that received it: its commit is done

        ctx.set_warning_handler(handler)
        ctx.import_json("animal", [{"id": 3, "name": "b"}])
        assert calls == [f'the store "{schema}": WARNING:  checked 2', 3, f'the store "{schema}": WARNING:  checked 3', 3]
        ctx.set_warning_handler(None)
        ctx.import_json("animal", [{"id": 4, "name": "c"}])
        assert len(calls) == 4
    seen = []
    with mapping.Context(spec, store=store, on_warning=seen.append) as ctx:
        ctx.import_json("animal", [{"id": 5, "name": "d"}, {"id": 6, "name": "e"}])
    assert seen == [f'the store "{schema}": WARNING:  checked 5', f'the store "{schema}": WARNING:  checked 6']


READER = """
import json, sys, time
sys.path.insert(0, sys.argv[3])
import mapping
seen = []
with mapping.Context(sys.argv[1], store=sys.argv[2]) as ctx:
    observer = ctx.observe(lambda changes: seen.append((time.monotonic(), changes)))  # kept: closing it stops it
    # Observers are told of changes to the rows the graph holds, and of rows others insert.
    assert ctx.get("Person", 1)["name"] != "renamed"
    print("ready", flush=True)
    deadline = time.monotonic() + 10
    while not seen and time.monotonic() < deadline:
        ctx.count("Person")  # any call applies what other processes have announced
        time.sleep(0.01)
    if seen:
        at, changes = seen[0]
        print(json.dumps({"at": at, "updated": [[u.object["id"], list(u.changed)] for u in changes.updated if u.object.entity == "Person"],
                          "inserted": sorted(o["id"] for o in changes.inserted if o.entity == "Person"),
                          "name": ctx.get("Person", 1)["name"]}), flush=True)
"""


def test_a_reader_sees_another_process_commit_through_its_observers_within_a_second(store):
    with mapping.Context(SPEC, store=store) as writer:
        writer.import_json("person", page(0, 3))
        reader = subprocess.Popen([sys.executable, "-c", READER, SPEC_TEXT, store, os.path.dirname(__file__)],
                                  env=ENV, stdout=subprocess.PIPE, text=True)
        assert reader.stdout.readline().strip() == "ready"
        writer.begin()
        writer.get("Person", 1)["name"] = "renamed"
        writer.import_json("person", page(3, 2))
        committed = time.monotonic()
        writer.commit()
        out, _ = reader.communicate(timeout=30)
    seen = json.loads(out)
    assert seen["at"] - committed < 1.0
    assert [1, ["name"]] in seen["updated"]
    assert seen["inserted"] == [3, 4]
    assert seen["name"] == "renamed"


def test_errors_name_the_store_and_leave_it_alone(store):
    with pytest.raises(mapping.StoreError, match="no store in the schema"):
        mapping.Context(SPEC, store=store, create=False)
    with mapping.Context(SPEC, store=store) as ctx:
        ctx.import_json("person", page(0, 2))
    changed = json.loads(SPEC_TEXT)
    changed["entities"]["Company"]["attributes"]["name"] = "integer"
    with pytest.raises(mapping.SpecError, match="Company.name changed type"):
        mapping.Context(changed, store=store)
    with mapping.Context(SPEC, store=store, read_only=True) as reader:
        assert reader.count("Person") == 2
        with pytest.raises(mapping.StoreError, match="read-only"):
            reader.get("Person", 1)["name"] = "x"
        assert reader.get("Person", 1)["name"] == person(1)["name"]
    with pytest.raises(mapping.StoreError, match="cannot connect"):
        mapping.Context(SPEC, store="postgresql:///nosuchdb?host=/nonexistent&schema=x")
    with mapping.Context(SPEC, store=store) as ctx:
        with pytest.raises(mapping.StoreError, match="NUL"):
            ctx.get("Person", 1)["name"] = "a\u0000b"
        assert ctx.get("Person", 1)["name"] == person(1)["name"]
    assert sql(store, 'SELECT count(*) FROM "Person"') == [["2"]]


def test_a_stale_graph_does_not_bring_back_what_another_process_removed_from_a_to_many(store):
    with mapping.Context(SPEC, store=store) as mine, mapping.Context(SPEC, store=store) as theirs:
        mine.import_json("person", page(0, 12))
        theirs.refresh()
        mine.begin()  # from here this graph is stale: it does not see their removal
        theirs.get("Person", 7).remove_related("tags", theirs.get("Tag", "t7"))
        mine.get("Person", 7).add_related("tags", mine.get("Tag", "t1"))
        mine.commit()
        tags = sql(store, 'SELECT t.name FROM "Person_tags" j JOIN "Tag" t ON t._id = j.target JOIN "Person" p ON p._id = j.owner '
                          'WHERE p.id = 7 ORDER BY t.name')
        assert tags == [["t1"], ["t8"], ["t9"]]  # person 7 had t7, t8, t9: their removal and my addition both hold
        mine.refresh()
        assert sorted(t["name"] for t in mine.get("Person", 7).related("tags")) == ["t1", "t8", "t9"]


def test_a_row_moving_between_lists_no_graph_has_read_is_written_once(store):
    """A person moving to another company, where this graph has read neither company's staff, is one
    version of its row (its values, its new company and its place at the end of that company's staff
    in one UPDATE), not three (its old place cleared, the row, its new place); a person leaving
    for no company has its place cleared first. The lists read back in order, the one left with a
    gap where the person was."""
    with mapping.Context(SPEC, store=store) as ctx:
        ctx.import_json("person", json.dumps({"people": [
            {"id": i, "name": f"P{i}", "company": {"id": 100 if i < 4 else 200, "name": "A" if i < 4 else "B"}}
            for i in range(1, 6)]}).encode())
    sql(store, "CREATE EXTENSION IF NOT EXISTS pageinspect SCHEMA public")
    def versions():
        # Every version of a Person row on the table's one page, live or not (nothing vacuums it here).
        return int(sql(store, "SELECT count(*) FROM public.heap_page_items(public.get_raw_page('\"Person\"', 0))")[0][0])
    before = versions()
    with mapping.Context(SPEC, store=store) as ctx:  # a new graph: no company's staff read
        ctx.import_json("person", json.dumps({"people": [
            {"id": 1, "name": "P1 moved", "company": {"id": 200, "name": "B"}},
            {"id": 2, "name": "P2 left", "company": None}]}).encode())
    assert versions() - before == 1 + 2  # person 1 once; person 2 cleared, then written
    placed = sql(store, 'SELECT p.id, coalesce(p.company_position::text, \'none\'), coalesce(c.id::text, \'none\') '
                        'FROM "Person" p LEFT JOIN "Company" c ON c._id = p.company ORDER BY p.id')
    assert placed == [["1", "2", "200"], ["2", "none", "none"], ["3", "2", "100"], ["4", "0", "200"], ["5", "1", "200"]]
    with mapping.Context(SPEC, store=store) as ctx:
        assert [p["id"] for p in ctx.get("Company", 100).related("employees")] == [3]
        assert [p["id"] for p in ctx.get("Company", 200).related("employees")] == [4, 5, 1]
        assert ctx.get("Person", 1)["name"] == "P1 moved" and ctx.get("Person", 2).related("company") is None
    # A new person joining a company whose staff no graph has read: placed by its INSERT, one version.
    before = versions()
    with mapping.Context(SPEC, store=store) as ctx:
        ctx.import_json("person", json.dumps({"people": [{"id": 6, "name": "P6", "company": {"id": 100, "name": "A"}}]}).encode())
    assert versions() - before == 1
    assert sql(store, 'SELECT company_position FROM "Person" WHERE id = 6') == [["3"]]
    with mapping.Context(SPEC, store=store) as ctx:
        assert [p["id"] for p in ctx.get("Company", 100).related("employees")] == [3, 6]


def test_an_identity_another_process_moved_onto_a_row_this_graph_holds_is_a_conflict(store):
    with mapping.Context(SPEC, store=store) as mine, mapping.Context(SPEC, store=store) as theirs:
        mine.create("Company", id=1, name="one")
        theirs.refresh()
        mine.begin()
        theirs.get("Company", 1)["id"] = 2  # the row this graph holds as Company 1 is now Company 2
        mine.create("Company", id=2, name="new")
        with pytest.raises(mapping.ConflictError, match="another identity"):
            mine.commit()
        assert mine.get("Company", 2)["name"] == "one"
        assert mine.get("Company", 1) is None
        assert sql(store, 'SELECT id, name FROM "Company"') == [["2", "one"]]


def test_announcements_from_elsewhere_are_untrusted_text(store):
    with mapping.Context(SPEC, store=store) as ctx:
        ctx.import_json("person", page(0, 2))
        schema = store.rsplit("schema=", 1)[1]
        for payload in ["x :1", ":", "x w", "x w0:99999999999999999999", "x w7:1"]:
            sql(store, f"NOTIFY \"mapping:{schema}\", '{payload}'")
        ctx.refresh()
        assert ctx.count("Person") == 2


def test_a_connection_string_libpq_cannot_parse_is_refused_without_repeating_it():
    with pytest.raises(mapping.MisuseError) as raised:
        mapping.Context(SPEC, store="postgresql://someone:s3cr3t-pw@[::1/db?schema=x")
    assert "s3cr3t" not in str(raised.value)
    with pytest.raises(mapping.StoreError) as raised:
        mapping.Context(SPEC, store="postgresql://someone:s3cr3t-pw@/nosuchdb?host=/nonexistent&schema=x")
    assert "s3cr3t" not in str(raised.value)


def test_a_context_that_does_not_follow_writes_as_others_do_but_applies_nothing_of_theirs(store):
    with mapping.Context(SPEC, store=store) as first:
        first.import_json("person", page(0, 3))
    with mapping.Context(SPEC, store=store, follow=False) as worker, mapping.Context(SPEC, store=store) as other:
        assert worker.count("Person") == 3
        held = worker.get("Person", 1)
        assert held["name"] == person(1)["name"]
        seen = []
        observer = worker.observe(seen.append)
        other.import_json("person", page(3, 3))
        other.get("Person", 1)["name"] = "theirs"
        other.get("Person", 2)["name"] = "theirs too"
        worker.refresh()
        # The rows it holds stay as it read them, and its observers hear nothing; rows it had not
        # read are read as they are now (a count runs in the database).
        assert seen == [] and held["name"] == person(1)["name"]
        assert worker.get("Person", 2)["name"] == "theirs too"
        assert worker.count("Person") == 6
        # Its commits still resolve identities others inserted, and still conflict on rows others changed.
        worker.import_json("person", page(4, 4))  # people 4 and 5 are the other's rows
        assert sql(store, 'SELECT count(*), count(DISTINCT id) FROM "Person"') == [["8", "8"]]
        with pytest.raises(mapping.ConflictError):
            worker.get("Person", 1)["name"] = "mine"
        assert sql(store, 'SELECT name FROM "Person" WHERE id = 1') == [["theirs"]]
        observer.close()


def test_a_grown_or_renamed_spec_brings_the_schema_up_to_it_and_other_changes_are_refused(store):
    with mapping.Context(SPEC, store=store) as ctx:
        ctx.import_json("person", page(0, 8))
    grown = json.loads(SPEC_TEXT)
    entities = grown["entities"]
    entities["Person"]["attributes"]["nickname"] = "string"
    entities["Pet"] = {"attributes": {"name": "string"}, "identification": "name",
                       "relationships": {"owner": {"entity": "Person", "inverse": "pets"}}}
    entities["Person"]["relationships"]["pets"] = {"entity": "Pet", "toMany": True, "inverse": "owner"}
    entities["Company"]["attributes"]["title"] = {"type": "string", "renamedFrom": "name"}
    del entities["Company"]["attributes"]["name"]
    grown["mappings"]["company"]["attributes"] = {"id": "id", "title": "name"}
    with mapping.Context(grown, store=store) as ctx:
        assert ctx.count("Person") == 8
        assert ctx.get("Company", 3)["title"] == "Company 3"
        ada = ctx.get("Person", 1)
        assert ada.get("nickname") is None
        ada["nickname"] = "Ada"
        ada.add_related("pets", ctx.create("Pet", name="Rex"))
    with mapping.Context(grown, store=store) as ctx:  # a new process would see the same
        assert ctx.get("Person", 1)["nickname"] == "Ada"
        assert [pet["name"] for pet in ctx.get("Person", 1).related("pets")] == ["Rex"]
    assert sql(store, 'SELECT c.title FROM "Company" c WHERE c.id = 3') == [["Company 3"]]
    assert sql(store, "SELECT count(*) FROM pg_constraint WHERE conrelid = to_regclass('\"Pet\"') AND contype = 'f'") == [["1"]]
    # The smaller spec would lose what the store holds: refused, and the schema is as it was.
    with pytest.raises(mapping.SpecError, match="nickname is stored but no longer in the spec"):
        mapping.Context(SPEC, store=store)
    assert sql(store, "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
               "AND table_name = 'Person' AND column_name = 'nickname'") == [["1"]]
    with mapping.Context(SPEC, store=store, rebuild=True) as ctx:
        assert ctx.count("Person") == 0


TAMPERINGS = {
    "a column renamed": ('ALTER TABLE "Person" RENAME COLUMN "name" TO "nom"', '"Person" has no column "name"'),
    "a column dropped": ('ALTER TABLE "Company" DROP COLUMN "name"', '"Company" has no column "name"'),
    "a number retyped as text": ('ALTER TABLE "Person" ALTER COLUMN "score" TYPE text', 'column "score" of "Person" is of type text'),
    "an identity retyped": ('ALTER TABLE "Person" ALTER COLUMN "id" TYPE integer', 'column "id" of "Person" is of type integer'),
    "a version retyped": ('ALTER TABLE "Phone" ALTER COLUMN "_version" TYPE numeric', 'column "_version" of "Phone" is of type numeric'),
    "a join table renamed": ('ALTER TABLE "Person_tags" RENAME TO "tags_of_people"', 'no table "Person_tags"'),
    "a join column retyped": ('ALTER TABLE "Person_tags" ALTER COLUMN "position" TYPE text', 'column "position" of "Person_tags"'),
}


@pytest.mark.parametrize("tampering", TAMPERINGS)
def test_a_schema_changed_outside_libmapping_is_refused_at_open_naming_the_column(store, tampering):
    """As an SQLite file is: the open is MAPPING_ESTORE naming the table or column, read-only too,
    and a spec that grew is not brought up to (the schema stays as it is)."""
    statement, message = TAMPERINGS[tampering]
    with mapping.Context(SPEC, store=store) as ctx:
        ctx.import_json("person", page(0, 3))
    sql(store, statement)
    columns = sql(store, "SELECT table_name, column_name, data_type FROM information_schema.columns "
                  "WHERE table_schema = current_schema() ORDER BY 1, 2")
    for options in ({}, {"read_only": True}):
        with pytest.raises(mapping.StoreError, match=message):
            mapping.Context(SPEC, store=store, **options)
    grown = json.loads(SPEC_TEXT)
    grown["entities"]["Person"]["attributes"]["nickname"] = "string"
    with pytest.raises(mapping.StoreError, match=message):
        mapping.Context(grown, store=store)
    assert sql(store, "SELECT table_name, column_name, data_type FROM information_schema.columns "
               "WHERE table_schema = current_schema() ORDER BY 1, 2") == columns


SERVER_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "Tests", "postgres", "server.sh")


@pytest.fixture
def own_server():
    """A server of the test's own, which it stops and restarts: (URI of a schema, its folder)."""
    folder = tempfile.mkdtemp(prefix="mapping-pg-own.", dir="/tmp")
    uri = subprocess.run(["bash", SERVER_SH, "start", folder], check=True, capture_output=True, text=True,
                         env=dict(os.environ, SERVER_OPTIONS="-c fsync=off")).stdout.strip()
    try:
        yield f"{uri}&schema=restarted", folder
    finally:
        subprocess.run(["bash", SERVER_SH, "stop", folder], check=False)


def server(action, folder):
    subprocess.run(["bash", SERVER_SH, action, folder], check=True)


def test_a_context_carries_on_after_the_server_restarts(own_server):
    store, folder = own_server
    with mapping.Context(SPEC, store=store) as ctx, mapping.Context(SPEC, store=store) as other:
        ctx.import_json("person", page(0, 6))
        ada = ctx.get("Person", 1)
        assert ada["name"] == person(1)["name"]
        seen = []
        observer = ctx.observe(seen.append)
        server("restart", folder)
        # The next calls reconnect: handles, observers and what was read stay.
        assert ctx.get("Person", 2)["id"] == 2
        assert ctx.get("Person", 1) == ada
        other.get("Person", 1)["name"] = "after the restart"
        ctx.refresh()
        assert ada["name"] == "after the restart"
        assert [u.changed for changes in seen for u in changes.updated if u.object == ada] == [("name",)]
        ada["name"] = "mine"
        assert sql(store, 'SELECT name FROM "Person" WHERE id = 1') == [["mine"]]

        # While the server is away, calls that need it fail saying so, and change nothing.
        server("halt", folder)
        with pytest.raises(mapping.StoreError, match="reconnect"):
            ctx.get("Person", 99)  # looked up in the database
        with pytest.raises(mapping.StoreError, match="reconnect"):
            ada["name"] = "while away"
        assert ada["name"] == "mine"  # what the graph holds answers, as it was
        with pytest.raises(mapping.StoreError, match="reconnect"):
            ctx.refresh()  # asked to be current, it cannot be
        server("restart", folder)
        assert ctx.get("Person", 99) is None
        ada["name"] = "back"
        assert sql(store, 'SELECT name FROM "Person" WHERE id = 1') == [["back"]]
        observer.close()


def test_a_commit_whose_connection_drops_during_commit_is_resolved_by_asking_the_server(own_server):
    store, folder = own_server
    with mapping.Context(SPEC, store=store) as ctx:
        ctx.import_json("person", page(0, 3))
        ada = ctx.get("Person", 1)
    # Each change to a person takes a second to commit, long enough to end the session meanwhile.
    sql(store, "CREATE FUNCTION slow() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$ LANGUAGE plpgsql")
    sql(store, 'CREATE CONSTRAINT TRIGGER slow AFTER UPDATE ON "Person" DEFERRABLE INITIALLY DEFERRED '
               "FOR EACH ROW EXECUTE FUNCTION slow()")
    with mapping.Context(SPEC, store=store) as ctx:
        ada = ctx.get("Person", 1)

        ended = []

        def end_the_commit():
            time.sleep(0.4)
            ended.extend(sql(store, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'COMMIT' "
                                    "AND pid <> pg_backend_pid()"))

        killer = threading.Thread(target=end_the_commit)
        killer.start()
        # The session ends during COMMIT: the server says the transaction did not commit, so the
        # commit runs again on a new connection, and is written once.
        ada["name"] = "written once"
        killer.join()
        assert ended == [["t"]], "the session was ended during its COMMIT"
        assert ada["name"] == "written once"
        assert sql(store, 'SELECT name, "_version" FROM "Person" WHERE id = 1') == [["written once", "2"]]
