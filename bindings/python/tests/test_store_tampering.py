"""A store file is input too: one changed outside libmapping (with sqlite3, as a user or an attacker
could) must fail with StoreError (MAPPING_ESTORE) naming the table, column or row, and leave the file
exactly as it was — never load wrong values, merge identities, or fail with another error. A changed
layout fails the open; opening reads no rows, so a changed row fails the first call that reads it.
Table-driven over a store generated here, each case tampering with a fresh copy."""
import hashlib
import json
import shutil
import sqlite3

import pytest

import mapping

SPEC = {
    "entities": {
        "Person": {"attributes": {"id": "integer", "name": "string", "born": "date", "extra": "json"},
                   "relationships": {"tags": {"entity": "Tag", "toMany": True, "inverse": "people"},
                                     "company": {"entity": "Company", "inverse": "staff"}}},
        "Company": {"attributes": {"id": "integer", "name": "string"},
                    "relationships": {"staff": {"entity": "Person", "toMany": True, "inverse": "company"}}},
        "Tag": {"attributes": {"label": "string"}, "identification": "label",
                "relationships": {"people": {"entity": "Person", "toMany": True, "inverse": "tags"}}},
    },
    "mappings": {
        "person": {"entity": "Person", "attributes": {"id": "id", "name": "name", "born": "born", "extra": "extra"},
                   "relationships": {"tags": {"mapping": "tag"}, "company": {"mapping": "company"}}},
        "company": {"entity": "Company", "attributes": {"id": "id", "name": "name"}},
        "tag": {"entity": "Tag", "attributes": {"label": "@self"}},
    },
}

PEOPLE = [{"id": i, "name": f"P{i}", "born": "2001-02-03T04:05:06.000007Z", "extra": {"n": i},
           "tags": ["a", "b"] if i % 2 else ["b", "c"], "company": {"id": i % 2, "name": f"C{i % 2}"}}
          for i in range(1, 5)]


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "original.db"
    with mapping.Context(SPEC, store=str(path)) as ctx:
        ctx.import_json("person", json.dumps(PEOPLE))
    return path


# (name, SQL run on the copy, text the error must contain); LAYOUT_CASES fail the open, ROW_CASES
# the first call that reads every row.
LAYOUT_CASES = [
    ("renamed attribute column", 'ALTER TABLE "Person" RENAME COLUMN "name" TO "nom"', '"Person" has no column "name"'),
    ("dropped identification column", 'DROP INDEX "Tag_identity"; ALTER TABLE "Tag" DROP COLUMN "label"',
     '"Tag" has no column "label"'),
    ("dropped to-one column", 'DROP INDEX "Person_company"; ALTER TABLE "Person" DROP COLUMN "company_position"',
     '"Person" has no column "company_position"'),
    ("renamed join column", 'ALTER TABLE "Person_tags" RENAME COLUMN "target" TO "t"', '"Person_tags" has no column "target"'),
    ("dropped table", 'DROP TABLE "Company"', 'no table "Company"'),
    # A schema rewritten in place (as `PRAGMA writable_schema` allows): `_id` no longer the rowid,
    # so rows would be read under whatever their records hold and written without one (found by
    # fuzzing: a person committed to such a file could not be found again); a column whose
    # declared type gives another affinity, so SQLite would turn what is written into text.
    ("_id no longer the INTEGER PRIMARY KEY",
     "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'INTEGER PRIMARY KEY', 'TEXT') "
     "WHERE name = 'Person'; PRAGMA writable_schema = OFF", '"_id" is no longer the INTEGER PRIMARY KEY of "Person"'),
    ("_id declared INT PRIMARY KEY (not a rowid)",
     "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'INTEGER PRIMARY KEY', 'INT PRIMARY KEY') "
     "WHERE name = 'Tag'; PRAGMA writable_schema = OFF", '"_id" is no longer the INTEGER PRIMARY KEY of "Tag"'),
    ("identification column retyped",
     "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, '\"id\" INTEGER', '\"id\" TEXT') "
     "WHERE name = 'Company'; PRAGMA writable_schema = OFF", 'column "id" of "Company" is declared TEXT, not INTEGER'),
    ("join column retyped",
     "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, '\"target\" INTEGER', '\"target\" VARCHAR') "
     "WHERE name = 'Person_tags'; PRAGMA writable_schema = OFF", 'column "target" of "Person_tags" is declared VARCHAR'),
    ("layout version 0", "UPDATE \"_mapping\" SET value = '0' WHERE key = 'format'", "layout version 0"),
    ("layout version -1", "UPDATE \"_mapping\" SET value = '-1' WHERE key = 'format'", "layout version -1"),
    ("layout version from the future", "UPDATE \"_mapping\" SET value = '99' WHERE key = 'format'", "newer libmapping"),
]
ROW_CASES = [
    ("two rows with one identity", 'DROP INDEX "Tag_identity"; UPDATE "Tag" SET label = \'a\' WHERE label = \'b\'',
     'hold one Tag identity ("a")'),
    ("invalid UTF-8 in an identification", "UPDATE \"Tag\" SET label = CAST(X'61FF' AS TEXT) WHERE label = 'a'",
     'row 1 of "Tag": column "label" holds text that is not valid UTF-8'),
    ("invalid UTF-8 in a string", "UPDATE \"Person\" SET name = CAST(X'50C3' AS TEXT) WHERE id = 2",
     'row 2 of "Person": column "name" holds text that is not valid UTF-8'),
    ("JSON that does not parse", "UPDATE \"Person\" SET extra = '{' WHERE id = 3",
     'row 3 of "Person": column "extra" holds JSON that does not parse'),
    ("JSON nested too deeply", "UPDATE \"Person\" SET extra = '" + "[" * 5000 + "]" * 5000 + "' WHERE id = 4",
     'row 4 of "Person": column "extra" holds JSON that does not parse'),
    ("text in a date column", "UPDATE \"Person\" SET born = 'yesterday' WHERE id = 1",
     'row 1 of "Person": column "born" holds a value a date attribute cannot'),
    ("a row of no entity", "UPDATE \"Person\" SET _entity = 'Robot' WHERE id = 1", 'a row of "Person" names no entity'),
    ("an _id out of range", "UPDATE \"Person\" SET _id = -5 WHERE id = 1", '"Person" has an _id out of range'),
    ("an _id of 0, which links cannot name", "UPDATE \"Person\" SET _id = 0 WHERE id = 1", '"Person" has an _id out of range'),
    ("a link to an impossible _id", "UPDATE \"Person\" SET company = -3 WHERE id = 1", "links to _id -3"),
]


def read_every_row(ctx):
    """Reads every row of the store and every value: a predicate the database cannot test makes
    the fetch read all of an entity's rows (the tampered one among them)."""
    for entity, attribute, relationships in (("Person", "name", ("tags", "company")), ("Company", "name", ("staff",)),
                                             ("Tag", "label", ("people",))):
        for obj in ctx.fetch(entity, f"{attribute} MATCHES %@ OR {attribute} == nil", ".*"):
            for name in relationships:
                obj.related(name)


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def copy(original, tmp_path, statements=""):
    """A copy of the original store, changed with sqlite3 by `statements`."""
    path = tmp_path / "copy.db"
    shutil.copy(original, path)
    db = sqlite3.connect(path)
    db.executescript(statements)
    db.close()
    return path


def spec_with(entity, attribute, kind):
    """SPEC with one attribute added or retyped."""
    spec = json.loads(json.dumps(SPEC))
    spec["entities"][entity]["attributes"][attribute] = kind
    return spec


@pytest.mark.parametrize("name,statements,message", LAYOUT_CASES, ids=[case[0] for case in LAYOUT_CASES])
def test_a_tampered_layout_is_refused_at_open_by_name_and_left_as_it_was(original, tmp_path, name, statements, message):
    path = copy(original, tmp_path, statements)
    before = digest(path)
    for read_only in (False, True):
        with pytest.raises(mapping.StoreError) as caught:
            mapping.Context(SPEC, store=str(path), read_only=read_only)
        assert message in str(caught.value), str(caught.value)
        assert digest(path) == before


@pytest.mark.parametrize("name,statements,message", ROW_CASES, ids=[case[0] for case in ROW_CASES])
def test_a_tampered_row_is_refused_when_read_by_name_and_left_as_it_was(original, tmp_path, name, statements, message):
    path = copy(original, tmp_path, statements)
    before = digest(path)
    for read_only in (False, True):
        with mapping.Context(SPEC, store=str(path), read_only=read_only) as ctx:
            # Every call that reads the row refuses it, again and again, and nothing is written.
            for _ in range(2):
                with pytest.raises(mapping.StoreError) as caught:
                    read_every_row(ctx)
                assert message in str(caught.value), str(caught.value)
        assert digest(path) == before


def test_the_untampered_copy_opens_with_every_value(original, tmp_path):
    path = copy(original, tmp_path)
    with mapping.Context(SPEC, store=str(path)) as ctx:
        assert sorted(t["label"] for t in ctx.all("Tag")) == ["a", "b", "c"]
        person = ctx.get("Person", 3)
        assert person["name"] == "P3" and person["extra"] == {"n": 3}
        assert sorted(t["label"] for t in person.related("tags")) == ["a", "b"]
        assert person.related("company")["id"] == 1


@pytest.mark.parametrize("statements,identity,message", [
    ('DROP INDEX "Tag_identity"; UPDATE "Tag" SET label = \'a\' WHERE label = \'b\'', ("Tag", "a"), 'hold one Tag identity ("a")'),
    ('DROP INDEX "Person_identity"; UPDATE "Person" SET id = 1 WHERE id = 3', ("Person", 1), "hold one Person identity (1)"),
], ids=["string identity", "integer identity"])
def test_two_rows_with_one_identity_are_refused_when_looked_up(original, tmp_path, statements, identity, message):
    """The rows an import or a get looks up by identity (through the identification's index, not
    a read of every row) are checked as they are read: two rows holding one identity are a
    StoreError, every time, and the graph and the file keep both rows apart (nothing is merged)."""
    path = copy(original, tmp_path, statements)
    before = digest(path)
    entity, key = identity
    payload = [{"id": 9, "name": "P9", "tags": ["a"]}] if entity == "Tag" else [{"id": 1, "name": "renamed"}]
    with mapping.Context(SPEC, store=str(path)) as ctx:
        for _ in range(2):
            with pytest.raises(mapping.StoreError) as caught:
                ctx.get(entity, key)
            assert message in str(caught.value), str(caught.value)
            with pytest.raises(mapping.StoreError) as caught:
                ctx.import_json("person", json.dumps(payload))
            assert message in str(caught.value), str(caught.value)
        assert ctx.get("Person", 9) is None
    assert digest(path) == before


def test_a_grown_spec_over_duplicate_identities_is_a_store_error(original, tmp_path):
    """Found by fuzzing: migration puts the identity index back, which two rows with one identity
    refuse; that is the file's fault (StoreError), not the caller's constraint, and nothing changes."""
    path = copy(original, tmp_path, 'DROP INDEX "Tag_identity"; UPDATE "Tag" SET label = \'a\' WHERE label = \'b\'')
    before = digest(path)
    with pytest.raises(mapping.StoreError, match="changed outside libmapping"):
        mapping.Context(spec_with("Tag", "color", "string"), store=str(path))
    assert digest(path) == before


@pytest.mark.parametrize("name,statements,message", LAYOUT_CASES[:4] + LAYOUT_CASES[5:9],
                         ids=[case[0] for case in LAYOUT_CASES[:4] + LAYOUT_CASES[5:9]])
def test_a_tampered_layout_is_refused_before_a_grown_spec_migrates_it(original, tmp_path, name, statements, message):
    """A spec that grew brings the store up to it in one transaction; the layout is checked in that
    transaction, so a file changed outside libmapping is refused as it was, not migrated first."""
    path = copy(original, tmp_path, statements)
    before = digest(path)
    with pytest.raises(mapping.StoreError) as caught:
        mapping.Context(spec_with("Tag", "color", "string"), store=str(path))
    assert message in str(caught.value), str(caught.value)
    assert digest(path) == before


@pytest.mark.parametrize("row_id,message", [
    (2**63 - 1, '"Person" has an _id out of range (9223372036854775807)'),
    (2**48 - 1, '"Person" has no _id left for a new row'),
])
def test_a_new_row_beyond_the_ids_a_store_can_hold_is_a_store_error(original, tmp_path, row_id, message):
    """Found by fuzzing: an _id set to the largest integer made the next new row's id overflow (a
    trap). Only an import that adds a row asks for a new id; it fails and nothing is written."""
    path = copy(original, tmp_path, f'UPDATE "Person" SET _id = {row_id} WHERE id = 4')
    before = digest(path)
    with mapping.Context(SPEC, store=str(path)) as ctx:
        for _ in range(2):
            with pytest.raises(mapping.StoreError) as caught:
                ctx.import_json("person", json.dumps([{"id": 99, "name": "new"}]))
            assert message in str(caught.value), str(caught.value)
        assert ctx.get("Person", 99) is None
    assert digest(path) == before
    # A change to existing rows needs no new id.
    with mapping.Context(SPEC, store=str(path)) as ctx:
        ctx.import_json("person", json.dumps([{"id": 1, "name": "renamed"}]))
    with mapping.Context(SPEC, store=str(path)) as ctx:
        assert ctx.get("Person", 1)["name"] == "renamed"
        assert ctx.get("Person", 99) is None


def test_a_store_refusing_a_read_only_open_says_what_would_bring_it_up(original, tmp_path):
    """Read-only, a grown spec asks for one writable open; a changed type is named, since opening
    for writing would refuse it too."""
    path = copy(original, tmp_path)
    with pytest.raises(mapping.SpecError, match="open it for writing once"):
        mapping.Context(spec_with("Person", "nickname", "string"), store=str(path), read_only=True)
    with pytest.raises(mapping.SpecError) as caught:
        mapping.Context(spec_with("Person", "name", "integer"), store=str(path), read_only=True)
    assert "changed type" in str(caught.value) and "open it for writing once" not in str(caught.value)
