"""The `mapping` tool on a PostgreSQL store: `import --store postgresql://…`, then `query` and
`serialize` of that URI, through the same engine call as an SQLite file. Needs a server:
MAPPING_TEST_POSTGRES names one (`make test-postgres` starts a throwaway one and runs this file,
with MAPPING_REQUIRE_POSTGRES=1 so that it fails rather than skips without it)."""
import json
import os
import pathlib
import subprocess
import uuid

import pytest

SERVER = os.environ.get("MAPPING_TEST_POSTGRES")
if not SERVER:
    if os.environ.get("MAPPING_REQUIRE_POSTGRES") == "1":
        raise RuntimeError("MAPPING_REQUIRE_POSTGRES=1 but MAPPING_TEST_POSTGRES names no server")
    pytest.skip("no PostgreSQL server: set MAPPING_TEST_POSTGRES (make test-postgres does)", allow_module_level=True)

from tool import FIXTURES, PEOPLE, ROOT, SPEC, TOOL, run


@pytest.fixture
def store():
    return f"{SERVER}&schema=cli_{uuid.uuid4().hex[:12]}"


def test_import_into_postgres_then_query_and_serialize_it(store):
    assert run("import", SPEC, PEOPLE, "--mapping", "person", "--store", store).stdout == \
        "mapped 3 top-level representations; 7 inserted (Company 2, Person 2, Phone 3), 0 updated, 0 deleted\n"
    assert run("import", SPEC, FIXTURES / "people_update.json", "--mapping", "person", "--store", store).stdout == \
        "mapped 2 top-level representations; 1 inserted (Person 1), 4 updated (Company 2, Person 1, Phone 1), 0 deleted\n"
    # A second import of the same data changes nothing: the store was read back, not replaced.
    assert run("import", SPEC, FIXTURES / "people_update.json", "--mapping", "person", "--store", store).stdout == \
        "mapped 2 top-level representations; 0 inserted, 0 updated, 0 deleted\n"
    found = json.loads(run("query", store, "Phone", "--sort", "number", "--json").stdout)
    assert found == [{"number": "+1-555", "kind": "work"}, {"number": "+44-1", "kind": "home"},
                     {"number": "+44-2", "kind": "work"}]
    names = [row["name"] for row in json.loads(run("query", store, "Person", "age > 30", "--sort", "-name", "--json").stdout)]
    assert names == ["Grace Hopper", "Ada Lovelace"]
    assert run("serialize", store, "company", "--sort", "id", "--compact").stdout == \
        '[{"id":10,"name":"Analytical Engines Ltd"},{"id":11,"name":"Difference"}]\n'


def test_a_failed_import_leaves_the_postgres_store_as_it_was(store, tmp_path):
    run("import", SPEC, PEOPLE, "--mapping", "person", "--store", store)
    bad = tmp_path / "bad.json"
    bad.write_text('{"data": {"people": [{"id": 1, "name": "changed", "age": "old"}]}}')
    result = run("import", SPEC, bad, "--mapping", "person", "--store", store, ok=False)
    assert result.returncode != 0 and "age" in result.stderr
    people = json.loads(run("query", store, "Person", "--sort", "id", "--json").stdout)
    assert [person["name"] for person in people] == ["Ada Lovelace", "Grace"]


def test_query_of_a_schema_without_a_store_says_so(store):
    result = run("query", store, "Person", ok=False)
    assert result.returncode != 0 and "no libmapping store" in result.stderr, result.stderr
