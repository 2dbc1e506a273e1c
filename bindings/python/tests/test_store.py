"""Context(spec, store=path): the graph written by one process is the graph another process reads;
failed imports leave the file alone; a second open is busy; bad files and other specs are errors."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import mapping

from conftest import FIXTURES

SPEC = FIXTURES / "people.spec.json"
WRITER = """
import pathlib, sys, mapping
with mapping.Context(pathlib.Path(sys.argv[1]), store=sys.argv[2]) as ctx:
    ctx.import_json("person", open(sys.argv[3], "rb").read())
    grace = ctx.get("Person", 2)
    grace["weight"] = "98765432109876543210.0123456789"
    ctx.delete(ctx.get("Phone", "+44-2"))
"""


def graph(ctx):
    """Every value and relationship, in order, as text."""
    return (ctx.serialize("person", ctx.all("Person"), include_nulls=True)
            + ctx.serialize("company", ctx.all("Company"), include_nulls=True))


def test_a_graph_written_by_one_process_is_read_by_another(tmp_path):
    path = tmp_path / "people.db"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", WRITER, SPEC, str(path), str(FIXTURES / "people.json")], check=True, env=env)
    with mapping.Context(SPEC, store=path) as ctx:
        grace = ctx.get("Person", 2)
        assert str(grace["weight"]) == "98765432109876543210.0123456789"
        assert [phone["number"] for phone in ctx.get("Person", 1).related("phones")] == ["+44-1"]
        assert ctx.get("Person", 1).related("company") == ctx.get("Company", 11)
        assert ctx.count("Phone") == 2
        written = graph(ctx)
    with mapping.Context(SPEC) as memory:  # the same work in memory gives the same graph
        memory.import_json("person", (FIXTURES / "people.json").read_bytes())
        memory.get("Person", 2)["weight"] = "98765432109876543210.0123456789"
        memory.delete(memory.get("Phone", "+44-2"))
        assert graph(memory) == written


def test_failures_leave_the_file_alone_and_a_second_open_is_busy(tmp_path):
    path = tmp_path / "people.db"
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("person", (FIXTURES / "people.json").read_bytes())
        before = graph(ctx)
        with pytest.raises(mapping.WrongTypeError):
            ctx.import_json("person", b'{"data": {"people": [{"id": 9}, {"id": "x"}]}}')
        with pytest.raises(mapping.BusyError, match="people.db"):
            mapping.Context(SPEC, store=path)
    with mapping.Context(SPEC, store=path, read_only=True) as ctx:
        assert graph(ctx) == before
        with pytest.raises(mapping.StoreError, match="read-only"):
            ctx.get("Person", 1)["name"] = "Changed"
        assert graph(ctx) == before


def test_files_that_cannot_be_used(tmp_path):
    missing = tmp_path / "missing.db"
    with pytest.raises(mapping.StoreError, match=r"missing.db.*no such file \(to make a new store, open it with MAPPING_OPEN_CREATE; in Python, create=True\)"):
        mapping.Context(SPEC, store=missing, create=False)
    assert not missing.exists()
    nowhere = tmp_path / "no such folder" / "people.db"
    with pytest.raises(mapping.StoreError, match=r'its folder ".*no such folder" does not exist \(create the folder first\)'):
        mapping.Context(SPEC, store=nowhere)
    # Locations that read as URIs are refused, not made files of odd names in the working folder.
    for location in ("postgres:/db", "postgresql:db?host=/tmp", "PostgreSQL://host/db"):
        with pytest.raises(mapping.StoreError, match="not a PostgreSQL URI libmapping recognizes: write it as postgresql://"):
            mapping.Context(SPEC, store=location)
    with pytest.raises(mapping.StoreError, match=r"is a mysql: URI: libmapping opens an SQLite store by its file's path"):
        mapping.Context(SPEC, store="mysql://host/db")
    assert not pathlib.Path("postgres:").exists() and not pathlib.Path("mysql:").exists()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 100)
    with pytest.raises(mapping.StoreError, match="junk.db"):
        mapping.Context(SPEC, store=junk)
    assert junk.read_bytes() == b"not a database" * 100, "the file is left as it was"
    path = tmp_path / "people.db"
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("person", (FIXTURES / "people.json").read_bytes())
    other = {"entities": {"A": {"attributes": {"id": "integer"}}},
             "mappings": {"a": {"entity": "A", "attributes": {"id": "id"}}}}
    with pytest.raises(mapping.SpecError, match="was removed from the spec, but the store holds 2"):
        mapping.Context(other, store=path)
    spaced = json.dumps(json.loads((FIXTURES / "people.spec.json").read_text()), indent=4)
    with mapping.Context(spaced, store=path) as ctx:  # the same spec written differently is the same spec
        assert ctx.count("Person") == 2


KILLED_WRITER = """
import sys, mapping
spec = {"entities": {"Item": {"attributes": {"id": "integer", "batch": "integer", "label": "string"}}},
        "mappings": {"item": {"entity": "Item", "attributes": {"id": "id", "batch": "batch", "label": "label"}}}}
with mapping.Context(spec, store=sys.argv[1]) as ctx:
    start = ctx.count("Item") // 50
    print("ready", flush=True)
    for batch in range(start, start + 10000):
        items = [{"id": batch * 50 + i, "batch": batch, "label": "x" * 40} for i in range(50)]
        ctx.import_json("item", __import__("json").dumps(items).encode())
"""


def test_kill_9_at_random_moments_leaves_whole_imports_only(tmp_path):
    """A writer importing 50-item batches is killed (SIGKILL) at a random moment, 20 times over the
    same file: each time the file passes SQLite's integrity check and holds whole batches only."""
    import random
    import signal
    import sqlite3
    import time

    path = tmp_path / "items.db"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    rng = random.Random(1234)
    counts = []
    for _ in range(20):
        writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path)], env=env, stdout=subprocess.PIPE)
        assert writer.stdout.readline().strip() == b"ready"
        time.sleep(rng.uniform(0.0, 0.3))
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            rows = db.execute('SELECT "batch", count(*) FROM "Item" GROUP BY "batch"').fetchall()
        db.close()
        assert all(count == 50 for _, count in rows), "a batch was written in part"
        assert [batch for batch, _ in rows] == list(range(len(rows))), "batches are whole and in order"
        counts.append(len(rows))
    assert counts == sorted(counts) and counts[-1] > counts[0], f"the writers made progress: {counts}"
    with mapping.Context({"entities": {"Item": {"attributes": {"id": "integer", "batch": "integer", "label": "string"}}},
                          "mappings": {"item": {"entity": "Item", "attributes": {"id": "id", "batch": "batch", "label": "label"}}}},
                         store=path) as ctx:
        assert ctx.count("Item") == 50 * counts[-1]


def test_a_truncated_store_is_an_error_and_is_left_as_it_is(tmp_path):
    path = tmp_path / "people.db"
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("person", (FIXTURES / "people.json").read_bytes())
    data = path.read_bytes()
    assert len(data) > 4096, "the store has more than one page"
    path.write_bytes(data[: len(data) // 2 + 100])
    cut = path.read_bytes()
    with pytest.raises(mapping.StoreError, match="people.db"):
        mapping.Context(SPEC, store=path)
    assert path.read_bytes() == cut


def test_the_order_of_a_one_to_many_survives_moves_and_new_owners(tmp_path):
    """Ordered one-to-many relationships keep their order on the targets' rows: a move within the
    list, a target taken by another owner and a target added are all read back in order."""
    path = tmp_path / "people.db"
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("person", (FIXTURES / "people.json").read_bytes())
        ada, grace = ctx.get("Person", 1), ctx.get("Person", 2)
        ada.move_related("phones", 0, 1)                       # +44-2, +44-1
        ada.add_related("phones", ctx.get("Phone", "+1-555"), 1)  # taken from Grace, into the middle
        expected = [phone["number"] for phone in ada.related("phones")]
        assert expected == ["+44-2", "+1-555", "+44-1"]
        assert list(grace.related("phones")) == []
    with mapping.Context(SPEC, store=path) as ctx:
        assert [phone["number"] for phone in ctx.get("Person", 1).related("phones")] == expected
        assert list(ctx.get("Person", 2).related("phones")) == []
        assert ctx.get("Phone", "+1-555").related("owner") == ctx.get("Person", 1)



def spec_with(change):
    spec = json.loads((FIXTURES / "people.spec.json").read_text())
    change(spec)
    return spec


def grow(spec):
    spec["entities"]["Person"]["attributes"]["nickname"] = "string"
    spec["entities"]["Person"]["relationships"]["pets"] = {"entity": "Pet", "toMany": True, "ordered": True, "inverse": "owner"}
    spec["entities"]["Pet"] = {"attributes": {"name": "string"}, "identification": "name",
                               "relationships": {"owner": {"entity": "Person", "inverse": "pets"}}}
    spec["mappings"]["pet"] = {"entity": "Pet", "attributes": {"name": "name"}}


def test_a_grown_spec_brings_the_store_up_to_it(tmp_path):
    path = tmp_path / "people.db"
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("person", (FIXTURES / "people.json").read_bytes())
        before = graph(ctx)
    grown = spec_with(grow)
    with mapping.Context(grown, store=path) as ctx:
        assert graph(ctx) == before, "every object kept"
        ada = ctx.get("Person", 1)
        assert ada.get("nickname") is None
        ada["nickname"] = "Enchantress"
        rex = ctx.create("Pet", name="Rex")
        ada.add_related("pets", rex)
    with mapping.Context(grown, store=path) as ctx:
        ada = ctx.get("Person", 1)
        assert ada["nickname"] == "Enchantress"
        assert [pet["name"] for pet in ada.related("pets")] == ["Rex"]
    with pytest.raises(mapping.SpecError, match="nickname is stored but no longer in the spec"):
        mapping.Context(SPEC, store=path)  # the smaller spec would lose what the store holds


def rename(spec):
    """Company becomes Employer, Person.city becomes town, Person.company becomes employer."""
    entities = spec["entities"]
    entities["Employer"] = dict(entities.pop("Company"), renamedFrom="Company")
    entities["Employer"]["relationships"]["employees"]["inverse"] = "employer"
    person = entities["Person"]
    del person["attributes"]["city"]
    person["attributes"]["town"] = {"type": "string", "renamedFrom": "city"}
    del person["relationships"]["company"]
    person["relationships"]["employer"] = {"entity": "Employer", "inverse": "employees", "renamedFrom": "company"}
    mapping = spec["mappings"]["person"]
    mapping["attributes"]["town"] = mapping["attributes"].pop("city")
    mapping["relationships"]["employer"] = mapping["relationships"].pop("company")
    spec["mappings"]["company"]["entity"] = "Employer"


def test_renamed_entities_attributes_and_relationships_keep_their_data(tmp_path):
    path = tmp_path / "people.db"
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("person", (FIXTURES / "people.json").read_bytes())
        ada = ctx.get("Person", 1)
        city, company = ada["city"], ada.related("company")["name"]
        count = ctx.count("Company")
    renamed = spec_with(rename)
    for _ in range(2):  # the first open renames; the second finds the store renamed
        with mapping.Context(renamed, store=path) as ctx:
            ada = ctx.get("Person", 1)
            assert ada["town"] == city
            assert ada.related("employer")["name"] == company
            assert ctx.count("Employer") == count
            assert ada in ctx.get("Employer", 11).related("employees")
    import sqlite3
    with sqlite3.connect(path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        columns = [row[1] for row in db.execute("PRAGMA table_info('Person')")]
    db.close()
    assert "Employer" in tables and "Company" not in tables
    assert "town" in columns and "employer" in columns and "city" not in columns and "company" not in columns


@pytest.mark.parametrize("change, message", [
    (lambda spec: spec["entities"]["Person"]["attributes"].update(age="string"), "Person.age changed type"),
    (lambda spec: spec["entities"]["Phone"].update(identification="kind"), "identification of Phone changed"),
])
def test_other_changes_are_refused_unless_the_store_is_rebuilt(tmp_path, change, message):
    path = tmp_path / "people.db"
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("person", (FIXTURES / "people.json").read_bytes())
    changed = spec_with(change)
    with pytest.raises(mapping.SpecError, match=message):
        mapping.Context(changed, store=path)
    with mapping.Context(SPEC, store=path) as ctx:  # refused: the store is as it was
        assert ctx.count("Person") == 2
    with mapping.Context(changed, store=path, rebuild=True) as ctx:
        assert ctx.count("Person") == 0
        ctx.import_json("person", (FIXTURES / "people.json").read_bytes())
    with mapping.Context(changed, store=path) as ctx:
        assert ctx.count("Person") == 2


def test_a_corrupted_page_is_an_error_and_is_left_as_it_is(tmp_path):
    path = tmp_path / "people.db"
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("person", (FIXTURES / "people.json").read_bytes())
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) >= 3 * page
    for page_start in range(page, len(data), page):  # every page but the header's: b-tree headers garbled
        data[page_start:page_start + 16] = b"\xff" * 16
    path.write_bytes(bytes(data))
    with pytest.raises(mapping.StoreError, match="people.db"):
        mapping.Context(SPEC, store=path)
    assert path.read_bytes() == bytes(data)


def test_a_decimal_is_a_number_its_scale_is_not_kept(tmp_path):
    """The decision documented in behaviour.md: "61.50" is the number 61.5, in memory and in a store."""
    import decimal
    payload = b'{"data": {"people": [{"id": 1, "weight": "61.50"}, {"id": 2, "weight": 61.5}]}}'
    with mapping.Context(SPEC, store=tmp_path / "people.db") as ctx:
        ctx.import_json("person", payload)
        ada = ctx.get("Person", 1)
        assert ada["weight"] == decimal.Decimal("61.5") and str(ada["weight"]) == "61.5"
        assert ctx.count("Person", "weight == %@", decimal.Decimal("61.50")) == 2
        assert '"weight":61.5,' in ctx.serialize("person", ada)
    with mapping.Context(SPEC, store=tmp_path / "people.db") as ctx:
        assert str(ctx.get("Person", 1)["weight"]) == "61.5"


def written_and_in_memory(path, payload):
    """Imports `payload` into a new store at `path` (closed after) and into memory: the graph the
    memory holds (`graph`), which the store must read back."""
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("person", payload)
    with mapping.Context(SPEC) as memory:
        memory.import_json("person", payload)
        return graph(memory)


def test_text_of_every_kind_and_length_is_written_as_it_came(tmp_path):
    """A batch of new rows binds its text where the graph keeps it, not copied: empty, non-ASCII,
    an inner NUL, short and long (3 MB in 70 rows; strings of 64 KiB or more have an arena chunk of
    their own), in rows of one INSERT of 64 and six more, read back reopened as the same import
    gives in memory."""
    names = ["", "é", "✓ ünïcödé 🎉", "x" * 15, "y" * 16, "z" * 700_000, "w" * 300_000, "a\u0000b", "Co"]
    payload = json.dumps({"data": {"people": [
        {"id": i, "name": names[i % len(names)], "address": {"city": names[(i + 1) % len(names)]},
         "phones": [{"number": f"+{i}-{names[i % 4]}", "kind": names[(i + 2) % len(names)]}]}
        for i in range(1, 71)]}})
    path = tmp_path / "texts.db"
    expected = written_and_in_memory(path, payload)
    with mapping.Context(SPEC, store=path) as ctx:
        assert ctx.get("Person", 5)["name"] == "z" * 700_000
        assert ctx.get("Person", 7)["name"] == "a\u0000b"
        assert ctx.get("Person", 2)["name"] == "✓ ünïcödé 🎉"
        assert ctx.get("Person", 9)["name"] == ""
        assert graph(ctx) == expected


@pytest.mark.parametrize("people", [1, 7, 8, 9, 63, 64, 65, 130])
def test_every_new_row_of_a_commit_is_written_whatever_the_commit_holds(tmp_path, people):
    """New rows are written several to a statement (64, 8, then one at a time): each size around
    those batches reads back, reopened, as the same import gives in memory, every value and link."""
    payload = json.dumps({"data": {"people": [
        {"id": i, "name": f"P{i}", "age": i % 90, "score": i / 4, "weight": f"{i}.25", "active": i % 2 == 0,
         "born": f"19{i % 100:02d}-01-02T03:04:05.000006Z", "tags": [i, {"n": str(i)}], "address": {"city": f"C{i % 3}"},
         "company": {"id": i % 5, "name": f"Co{i % 5}"},
         "phones": [{"number": f"+{i}-{k}", "kind": "home" if k else "work"} for k in range(i % 4)]}
        for i in range(1, people + 1)]}})
    path = tmp_path / "batches.db"
    expected = written_and_in_memory(path, payload)
    with mapping.Context(SPEC, store=path) as ctx:
        assert ctx.count("Person") == people
        assert ctx.count("Phone") == sum(i % 4 for i in range(1, people + 1))
        assert graph(ctx) == expected
