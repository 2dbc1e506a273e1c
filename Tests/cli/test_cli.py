"""The `mapping` tool, run as a user runs it, with exact expected output: check, import (into a store
and into memory, from a mapping or as a response), query, serialize, explain (finding a misspelled key
path) and spec from-openapi (a draft that check accepts and that maps a sample response)."""
import json
import os
import pathlib
import subprocess

import pytest

from tool import FIXTURES, PEOPLE, ROOT, SPEC, TOOL, run


def test_the_tool_is_built():
    assert pathlib.Path(TOOL).is_file(), f"{TOOL} is missing: run `make cli`"
    assert "USAGE: mapping <subcommand>" in run("--help").stdout


def test_check_lists_what_the_spec_declares():
    assert run("check", SPEC).stdout == """entities:
  Person, identified by id
    attributes: id integer, name string, age integer, score double, weight decimal, active boolean, born date, tags json, city string
    company -> Company (inverse employees)
    phones -> many Phone (ordered, inverse owner)
  Company, identified by id
    attributes: id integer, name string
    employees -> many Person (inverse company)
  Phone, identified by number
    attributes: number string, kind string
    owner -> Person (inverse phones)
mappings:
  person -> Person at data.people: 9 attributes, 2 relationships
  company -> Company: 2 attributes
  phone -> Phone: 2 attributes
"""


def test_check_reports_a_typo_with_the_fix_and_the_place(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text((FIXTURES / "people.spec.json").read_text().replace('"age": "integer"', '"age": "integr"'))
    result = run("check", bad, ok=False)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == ('Error: unknown attribute type "integr": did you mean "integer"? '
                             "(types: boolean, date, decimal, double, integer, json, string)\n"
                             f"  {bad}, at $.entities.Person.attributes.age\n")


def test_import_into_a_store_then_query_and_serialize_it(tmp_path):
    store = tmp_path / "people.db"
    assert run("import", SPEC, PEOPLE, "--mapping", "person", "--store", store).stdout == \
        "mapped 3 top-level representations; 7 inserted (Company 2, Person 2, Phone 3), 0 updated, 0 deleted\n"
    assert run("import", SPEC, FIXTURES / "people_update.json", "--mapping", "person", "--store", store).stdout == \
        "mapped 2 top-level representations; 1 inserted (Person 1), 4 updated (Company 2, Person 1, Phone 1), 0 deleted\n"
    table = run("query", store, "Person", "age > 30", "--sort", "-name", "--limit", "10").stdout
    assert table.splitlines() == [
        "id  name          age  score  weight  active  born                      tags                    city",
        "--  ------------  ---  -----  ------  ------  ------------------------  ----------------------  ------",
        "2   Grace Hopper  86   7.0    null    true    1970-01-01T00:00:01.000Z  null                    null",
        "1   Ada Lovelace  36   9.5    61.25   true    1815-12-10T00:00:00.000Z  [\"math\",{\"engines\":2}]  London",
        "(2 objects)",
    ]
    found = json.loads(run("query", store, "Phone", "--sort", "number", "--json").stdout)
    assert found == [{"number": "+1-555", "kind": "work"}, {"number": "+44-1", "kind": "home"},
                     {"number": "+44-2", "kind": "work"}]
    assert run("serialize", store, "company", "--sort", "id", "--compact").stdout == \
        '[{"id":10,"name":"Analytical Engines Ltd"},{"id":11,"name":"Difference"}]\n'


def test_a_reimport_of_the_same_data_changes_nothing(tmp_path):
    store = tmp_path / "people.db"
    run("import", SPEC, PEOPLE, "--mapping", "person", "--store", store)
    assert run("import", SPEC, PEOPLE, "--mapping", "person", "--store", store).stdout == \
        "mapped 3 top-level representations; 0 inserted, 0 updated, 0 deleted\n"


def test_import_without_a_store_prints_the_graph_and_shows_progress_when_asked():
    result = subprocess.run([TOOL, "import", SPEC, PEOPLE, "--mapping", "person", "--progress"], capture_output=True, timeout=60)
    assert result.returncode == 0
    printed = json.loads(result.stdout)
    assert [person["id"] for person in printed["data"]["people"]] == [1, 2, 1]
    assert result.stderr == b"\r[##############################] 9 / 9 representations\n"  # redrawn in place, then a newline
    quiet = subprocess.run([TOOL, "import", SPEC, PEOPLE, "--mapping", "person"], capture_output=True, timeout=60)
    assert quiet.stderr == b"", "no bar for a small input that is not on a terminal"


def test_query_errors_point_at_the_mistake(tmp_path):
    store = tmp_path / "people.db"
    run("import", SPEC, PEOPLE, "--mapping", "person", "--store", store)
    result = run("query", store, "Person", "agee > 30", ok=False)
    assert result.returncode == 1
    assert result.stderr == ('Error: entity "Person" has no attribute or relationship "agee" (column 1): did you mean "age"? '
                             "(attributes and relationships: active, age, born, city, company, id, name, phones, score, tags, weight)\n"
                             "  agee > 30\n  ^\n")
    assert run("query", tmp_path / "missing.db", "Person", ok=False).stderr == f"Error: no store at {tmp_path / 'missing.db'}\n"


def test_explain_finds_a_misspelled_key_path(tmp_path):
    typo = tmp_path / "typo.json"
    typo.write_text((FIXTURES / "people.spec.json").read_text().replace('"address.city"', '"adress.city"'))
    report = run("explain", typo, PEOPLE, "--mapping", "person").stdout
    assert report.startswith('mapping "person": 3 representations\n'
                             "  key path     into            matched\n"
                             "  -----------  --------------  -------  -------------\n"
                             "  id           Person.id       3/3\n")
    assert "  adress.city  Person.city     0/3      never matched\n" in report
    assert "  weight       Person.weight   1/3\n" in report
    assert report.endswith("1 key path never matched\n")
    strict = run("import", typo, PEOPLE, "--mapping", "person", "--strict", ok=False)
    assert strict.returncode == 1 and strict.stderr.startswith('Error: strict import: key path "adress.city"')
    warned = run("import", typo, PEOPLE, "--mapping", "person")
    assert warned.stderr == ('warning: key path "adress.city" of mapping "person" (Person.city) matched nothing in '
                             "3 representations: check its spelling against the payload\n")


def test_explain_reports_representations_without_identification(tmp_path):
    payload = tmp_path / "payload.json"
    payload.write_text('{"data": {"people": [{"id": 1, "phones": [{"kind": "home"}, {"kind": "work"}]}]}}')
    report = run("explain", SPEC, payload, "--mapping", "person").stdout
    assert 'mapping "phone": 2 representations without Phone.number (first at $.data.people[0].phones[0])\n' in report


def test_spec_from_openapi_drafts_a_spec_that_checks_and_maps_a_response(tmp_path):
    result = run("spec", "from-openapi", FIXTURES / "openapi" / "petstore.yaml")
    report = result.stderr.splitlines()
    assert report[:2] == [
        "no identification for Error: none of id, uuid, <name>_id, sha, node_id, key, slug, url "
        "(each import makes new objects; add one to the entity)",
        "no identification for Toy: none of id, uuid, <name>_id, sha, node_id, key, slug, url "
        "(each import makes new objects; add one to the entity)"]
    assert report[2].startswith("draft: 4 entities from 4 schemas (0 schemas merged into 0 entities), 2 with an identification; "
                                "2 relationships, 0 with an inverse; routes for 4 of 4 operations (2 entity routes, 0 skipped); "
                                "3 response descriptors; ")
    spec = json.loads(result.stdout)
    assert spec["entities"]["Pet"]["identification"] == ["id"]
    assert spec["entities"]["Owner"]["identification"] == ["ownerId"]
    assert "identification" not in spec["entities"]["Toy"]  # left out, never null
    assert spec["entities"]["Pet"]["attributes"] == {"born": "date", "id": "integer", "name": "string", "tags": "json",
                                                     "vaccinated": "boolean", "weight": "double"}
    assert spec["entities"]["Pet"]["relationships"] == {"owner": {"entity": "Owner"},
                                                        "toys": {"entity": "Toy", "toMany": True, "ordered": True}}
    assert spec["mappings"]["pet"]["optional"] == ["born", "owner", "tags", "toys", "vaccinated", "weight"]
    assert {"mapping": "pet", "method": "GET", "pathPattern": "/pets", "keyPath": "data"} in spec["responseDescriptors"]
    assert {"entity": "Pet", "method": "GET", "path": "/pets/:id"} in spec["routes"]
    assert {"name": "DELETE /pets/{id}", "method": "DELETE", "path": "/pets/:id"} in spec["routes"]
    draft = tmp_path / "pets.spec.json"
    draft.write_text(result.stdout)
    assert run("check", draft).stdout.startswith("entities:\n  Error, no identification\n")
    store = tmp_path / "pets.db"
    imported = run("import", draft, FIXTURES / "openapi" / "pets.json", "--response", "GET /pets", "--store", store)
    assert imported.stdout == "mapped 2 top-level representations; 5 inserted (Owner 1, Pet 2, Toy 2), 0 updated, 0 deleted\n"
    assert imported.stderr == ""  # the second pet lacks optional keys: no warning
    assert run("query", store, "Pet", "owner.name == 'Ann'", "--sort", "name").stdout.splitlines()[2:] == [
        "2020-02-29T12:00:00.000Z  1   Rex   [\"good\"]  true        12.5",
        "null                      2   Tom   null      null        null",
        "(2 objects)",
    ]


def test_from_openapi_refuses_what_is_not_openapi_3(tmp_path):
    swagger = tmp_path / "swagger.yaml"
    swagger.write_text("swagger: '2.0'\ninfo: {title: old, version: '1'}\npaths: {}\n")
    result = run("spec", "from-openapi", swagger, ok=False)
    assert result.returncode == 1
    assert result.stderr == f'Error: {swagger} is not an OpenAPI 3 document (its "openapi" field is missing)\n'


def test_explain_still_reports_when_the_payload_no_longer_maps(tmp_path):
    """A representation with none of its mapping's keys fails the import; explain shows what it
    counted before that, then the error."""
    payload = tmp_path / "drifted.json"
    payload.write_text('{"data": {"people": [{"id": 1, "name": "Ada"}, {"identifier": 2, "fullName": "Grace"}]}}')
    result = run("explain", SPEC, payload, "--mapping", "person", ok=False)
    assert result.returncode == 1
    assert result.stdout.startswith('mapping "person": 2 representations\n')
    assert "  name          Person.name     1/2\n" in result.stdout
    assert result.stderr.startswith('Error: no mappable values found for mapping "person"')


def test_explain_says_nothing_was_explained_when_the_payload_does_not_parse(tmp_path):
    payload = tmp_path / "broken.json"
    payload.write_text('{"data": {"people": [{"id": 1,,}]}}')
    result = run("explain", SPEC, payload, "--mapping", "person", ok=False)
    assert result.returncode == 1
    assert result.stdout in ("", "nothing was mapped\n")  # never "every key path matched"
    assert "malformed JSON at line 1, column 31" in result.stderr


def test_a_depth_error_has_one_column_plain_and_with_lines(tmp_path):
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 3000 + "]" * 3000 + "\n")
    spec = tmp_path / "tags.spec.json"
    spec.write_text(json.dumps({"entities": {"Tag": {"attributes": {"label": "string", "data": "json"}, "identification": "label"}},
                                "mappings": {"tag": {"entity": "Tag", "attributes": {"label": "label", "data": "data"}}}}))
    plain = run("import", spec, deep, "--mapping", "tag", ok=False).stderr
    lines = run("import", spec, deep, "--mapping", "tag", "--lines", ok=False).stderr
    plain_column = plain.split("column ")[1].split(":")[0]
    assert plain_column == lines.split("column ")[1].split(":")[0], (plain, lines)
    assert "nested too deeply" in plain and "nested too deeply" in lines


def test_a_failed_import_leaves_no_new_store_behind(tmp_path):
    store = tmp_path / "new.db"
    payload = tmp_path / "bad.json"
    payload.write_text('{"data": {"people": [{"id": "not a number"}]}}')
    result = run("import", SPEC, payload, "--mapping", "person", "--store", store, ok=False)
    assert result.returncode == 1 and "not an integer" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]
    # An existing store stays, unchanged, when an import into it fails.
    run("import", SPEC, PEOPLE, "--mapping", "person", "--store", store)
    run("import", SPEC, payload, "--mapping", "person", "--store", store, ok=False)
    assert store.exists()
    assert sorted(p["id"] for p in json.loads(run("query", store, "Person", "--json").stdout)) == [1, 2]


def test_a_postgres_store_that_cannot_be_reached_is_named_without_its_password(tmp_path):
    uri = "postgresql://someone:s3cr3t-pw@/nosuchdb?host=/nonexistent&schema=x"
    for args in (("import", SPEC, PEOPLE, "--mapping", "person", "--store", uri), ("query", uri, "Person")):
        result = run(*args, ok=False)
        assert result.returncode != 0 and "PostgreSQL" in result.stderr, result.stderr
        assert "s3cr3t-pw" not in result.stderr + result.stdout, result.stderr


def test_version_is_the_headers():
    header = (ROOT / "include" / "mapping.h").read_text()
    version = header.split('#define MAPPING_VERSION_STRING "')[1].split('"')[0]
    assert run("--version").stdout == version + "\n"


def test_query_columns_follow_to_one_relationships_and_name_mistakes(tmp_path):
    store = tmp_path / "people.db"
    run("import", SPEC, PEOPLE, "--mapping", "person", "--store", store)
    assert run("query", store, "Person", "--sort", "id", "--columns", "name, company.name,age").stdout.splitlines() == [
        "name          company.name            age",
        "------------  ----------------------  ---",
        "Ada Lovelace  Difference              36",  # the payload's last Ada moved her to company 11
        "Grace         Analytical Engines Ltd  85",
        "(2 objects)",
    ]
    assert json.loads(run("query", store, "Phone", "--sort", "number", "--columns", "number,owner.name", "--json").stdout) == [
        {"number": "+1-555", "owner.name": "Grace"}, {"number": "+44-1", "owner.name": "Ada Lovelace"},
        {"number": "+44-2", "owner.name": "Ada Lovelace"}]
    wrong = run("query", store, "Person", "--columns", "compny.name", ok=False)
    assert wrong.returncode != 0
    assert wrong.stderr.startswith('Error: --columns: Person has no to-one relationship "compny" (in compny.name): did you mean "company"?')
    wrong = run("query", store, "Person", "--columns", "company.nme", ok=False)
    assert wrong.stderr.startswith('Error: --columns: Company has no attribute "nme" (in company.nme): did you mean "name"?')


def test_a_table_on_a_terminal_fits_its_width(tmp_path):
    import pty
    store = tmp_path / "people.db"
    run("import", SPEC, PEOPLE, "--mapping", "person", "--store", store)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the tool with a terminal as standard output, 40 columns wide
        os.environ["COLUMNS"] = "40"
        os.execv(TOOL, [TOOL, "query", str(store), "Person", "--sort", "id"])
    output = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    os.waitpid(pid, 0)
    lines = output.decode().replace("\r\n", "\n").splitlines()
    assert lines[:4] == [
        "id  name          age  score  weight",
        "--  ------------  ---  -----  ------",
        "1   Ada Lovelace  36   9.5    61.25",
        "2   Grace         85   7.0    null",
    ]
    assert lines[4] == "(4 more columns: active, born, tags, city; choose with --columns, or --wide / --json for all)"
    assert all(len(line) <= 40 for line in lines[:4])
