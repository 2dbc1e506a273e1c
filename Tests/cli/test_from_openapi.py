"""`mapping spec from-openapi` against real documents (GitHub's REST description, the Swagger
Petstore) and small ones written to pin one rule each: the draft loads and checks, sample responses
through several endpoints of one resource map to one object per identity, every operation gets a
route, and what the draft leaves out is reported."""
import json
import sys

from tool import FIXTURES, ROOT, run

OPENAPI = FIXTURES / "openapi"
SAMPLES = OPENAPI / "samples"


def draft(tmp_path, document, *options):
    out = tmp_path / "draft.json"
    result = run("spec", "from-openapi", document, "-o", out, *options)
    assert result.stdout == ""  # -o writes the file, not standard output
    return json.loads(out.read_text()), out, result.stderr.splitlines()


def summary(report):
    assert report[-1].startswith("draft: ")
    return report[-1]


def query(store, entity):
    return json.loads(run("query", store, entity, "--json").stdout)


def test_githubs_description_drafts_a_spec_that_checks_with_one_entity_per_resource(tmp_path):
    spec, out, report = draft(tmp_path, OPENAPI / "github-api.github.com.json")
    line = summary(report)
    assert "routes for 623 of 623 operations" in line and "0 skipped" in line
    entities = spec["entities"]
    # Schemas of one resource are one entity.
    merged = {line.split(":")[0]: line for line in report if line.startswith("merged into ")}
    for schemas in (["actor", "collaborator", "contributor", "private-user", "public-user", "simple-user"],):
        assert all(f" {name}," in merged["merged into User"] or merged["merged into User"].split(": ")[1].startswith(name)
                   for name in schemas), merged["merged into User"]
    assert merged["merged into Issue"].startswith("merged into Issue: issue, issue-search-result-item, issue-simple ")
    assert {spec["mappings"][name]["entity"] for name in ("issue", "issueSimple", "issueSearchResultItem")} == {"Issue"}
    assert {spec["mappings"][name]["entity"] for name in ("simpleUser", "actor", "publicUser", "privateUser")} == {"User"}
    # Identification falls back on sha; it is left out, never null, when nothing fits.
    assert entities["Commit"]["identification"] == ["sha"]
    assert entities["Blob"]["identification"] == ["sha"]
    assert all(entity.get("identification", ["?"]) is not None for entity in entities.values())
    assert "identification" not in entities["RateLimitOverview"]
    assert any(line.startswith("no identification for RateLimitOverview: ") for line in report)
    # The path with text after a parameter converts, escaped; a list path gives a to-many with its inverse.
    assert {"name": "repos/compare-commits", "method": "GET", "path": "/repos/:owner/:repo/compare/:base\\...:head"} in spec["routes"]
    assert entities["Repository"]["relationships"]["issues"] == {"entity": "Issue", "toMany": True, "ordered": True,
                                                                 "inverse": "repository"}
    assert entities["Issue"]["relationships"]["repository"] == {"entity": "Repository", "inverse": "issues"}
    assert any(line.startswith("json in ") for line in report)
    assert any(line.startswith("schema email: ") for line in report)
    assert run("check", out).stdout.startswith("entities:\n")


def test_an_issue_read_through_three_endpoints_is_one_object(tmp_path):
    spec, out, _ = draft(tmp_path, OPENAPI / "github-api.github.com.json")
    store = tmp_path / "github.db"
    first = run("import", out, SAMPLES / "github_issue.json", "--response", "GET /repos/octocat/Hello-World/issues/1347",
                "--store", store)
    assert first.stdout == "mapped 1 top-level representation; 4 inserted (Issue 1, Repository 1, User 2), 0 updated, 0 deleted\n"
    # Optional properties the sample lacks are no warning; required ones are.
    assert "\"body_html\"" not in first.stderr and "\"closed_at\"" in first.stderr
    assert run("import", out, SAMPLES / "github_issues.json", "--response", "GET /repos/octocat/Hello-World/issues",
               "--store", store).stdout == \
        "mapped 2 top-level representations; 2 inserted (Issue 1, Label 1), 1 updated (Issue 1), 0 deleted\n"
    assert run("import", out, SAMPLES / "github_search_issues.json", "--response", "GET /search/issues?q=bug",
               "--store", store).stdout == "mapped 1 top-level representation; 0 inserted, 1 updated (Issue 1), 0 deleted\n"
    issues = query(store, "Issue")
    assert [(i["id"], i["number"], i["state"], i["title"]) for i in issues] == [
        (1, 1347, "closed", "Found a bug"), (2, 1348, "closed", "Another bug, fixed")]
    assert issues[0]["body"] == "I'm having a problem with this."  # kept: the list's schema lacks body
    assert sorted((u["id"], u["login"]) for u in query(store, "User")) == [(1, "octocat"), (2, "hubot")]
    assert [(label["id"], label["name"]) for label in query(store, "Label")] == [(208045946, "bug")]
    assert [r["full_name"] for r in query(store, "Repository")] == ["octocat/Hello-World"]


def test_warn_optional_asks_for_the_optional_key_paths_too(tmp_path):
    _, out, _ = draft(tmp_path, OPENAPI / "github-api.github.com.json")
    result = run("import", out, SAMPLES / "github_issue.json", "--response", "GET /repos/octocat/Hello-World/issues/1347",
                 "--warn-optional")
    assert 'warning: key path "body_html" of mapping "issue" (Issue.body_html) matched nothing in 1 representation' in result.stderr


def test_the_petstore_description_maps_a_pet_read_through_two_endpoints_once(tmp_path):
    spec, out, report = draft(tmp_path, OPENAPI / "petstore-openapi.yaml")
    assert "routes for 19 of 19 operations" in summary(report)
    assert spec["entities"]["Pet"]["identification"] == ["id"]
    assert spec["entities"]["Pet"]["relationships"]["category"] == {"entity": "Category"}
    assert spec["entities"]["Pet"]["relationships"]["tags"] == {"entity": "Tag", "toMany": True, "ordered": True}
    assert {"entity": "Pet", "method": "GET", "path": "/pet/:petId"} not in spec["routes"]  # petId is no attribute
    assert {"name": "getPetById", "method": "GET", "path": "/pet/:petId"} in spec["routes"]
    store = tmp_path / "pets.db"
    assert run("import", out, SAMPLES / "petstore_find_by_status.json", "--response", "GET /pet/findByStatus?status=available",
               "--store", store).stdout == \
        "mapped 2 top-level representations; 5 inserted (Category 1, Pet 2, Tag 2), 0 updated, 0 deleted\n"
    assert run("import", out, SAMPLES / "petstore_pet.json", "--response", "GET /pet/10", "--store", store).stdout == \
        "mapped 1 top-level representation; 0 inserted, 1 updated (Pet 1), 0 deleted\n"
    assert [(p["id"], p["name"], p["status"]) for p in query(store, "Pet")] == [(10, "doggie", "sold"), (11, "rex", "available")]
    assert [c["name"] for c in query(store, "Category")] == ["Dogs"]


SMALL = """openapi: 3.0.3
info: {title: rules, version: "1"}
paths:
  /files/{name}.json:
    get:
      operationId: getFile
      responses:
        "200": {description: a file, content: {application/json: {schema: {$ref: "#/components/schemas/File"}}}}
  /pairs/{a}{b}:
    get:
      responses:
        "200": {description: nothing, content: {application/json: {schema: {$ref: "#/components/schemas/File"}}}}
  /zoo/{id}:
    get:
      responses:
        "200": {description: an animal, content: {application/json: {schema: {$ref: "#/components/schemas/Zoo"}}}}
components:
  schemas:
    File:
      type: object
      required: [name]
      properties:
        name: {type: string}
        size: {type: integer}
    Animal:
      type: object
      properties:
        id: {type: integer}
        kind: {type: string}
    Dog:
      allOf:
        - $ref: "#/components/schemas/Animal"
        - type: object
          properties:
            barks: {type: boolean}
    Cat:
      allOf:
        - $ref: "#/components/schemas/Animal"
        - type: object
          properties:
            lives: {type: integer}
    Zoo:
      type: object
      properties:
        id: {type: integer}
        animals:
          type: array
          items:
            oneOf: [{$ref: "#/components/schemas/Dog"}, {$ref: "#/components/schemas/Cat"}]
            discriminator:
              propertyName: kind
              mapping: {dog: "#/components/schemas/Dog", cat: "#/components/schemas/Cat"}
"""


def test_paths_escape_text_after_a_parameter_or_are_skipped_with_the_documents_path(tmp_path):
    document = tmp_path / "small.yaml"
    document.write_text(SMALL)
    spec, out, report = draft(tmp_path, document, "--no-merge")
    assert {"name": "getFile", "method": "GET", "path": "/files/:name\\.json"} in spec["routes"]
    assert "skipped GET /pairs/{a}{b}: parameters {a} and {b} have no text between them" in report
    assert "routes for 2 of 3 operations (2 entity routes, 1 skipped)" in summary(report)
    # The route fills :name, not a key path name.json (which gave "/files/(null)").
    sys.path.insert(0, str(ROOT / "bindings" / "python" / "src"))
    import mapping
    with mapping.Context(out.read_text()) as ctx:
        [found] = ctx.import_json("file", {"name": "report", "size": 3})
        assert ctx.route_path(found, "GET") == "/files/report.json"
        assert ctx.route_path(None, "GET", name="getFile") == "/files/:name\\.json"


def test_all_of_a_base_is_a_parent_and_a_discriminated_choice_a_dynamic_mapping(tmp_path):
    document = tmp_path / "small.yaml"
    document.write_text(SMALL)
    spec, out, _ = draft(tmp_path, document)
    assert spec["entities"]["Dog"] == {"attributes": {"barks": "boolean"}, "parent": "Animal"}
    assert spec["entities"]["Cat"] == {"attributes": {"lives": "integer"}, "parent": "Animal"}
    assert spec["entities"]["Zoo"]["relationships"]["animals"] == {"entity": "Animal", "toMany": True, "ordered": True}
    assert spec["mappings"]["zooAnimalsChoice"] == {"dynamic": {"keyPath": "kind", "cases": {"cat": "cat", "dog": "dog"}}}
    payload = tmp_path / "zoo.json"
    payload.write_text(json.dumps({"id": 1, "animals": [{"id": 7, "kind": "dog", "barks": True},
                                                        {"id": 8, "kind": "cat", "lives": 9}]}))
    store = tmp_path / "zoo.db"
    assert run("import", out, payload, "--response", "GET /zoo/1", "--store", store).stdout == \
        "mapped 1 top-level representation; 3 inserted (Cat 1, Dog 1, Zoo 1), 0 updated, 0 deleted\n"
    assert [(d["id"], d["barks"]) for d in query(store, "Dog")] == [(7, True)]
    assert [(c["id"], c["lives"]) for c in query(store, "Cat")] == [(8, 9)]


def test_merge_by_hand_and_selected_paths(tmp_path):
    spec, _, report = draft(tmp_path, OPENAPI / "github-api.github.com.json", "--paths", "/gists*", "--no-merge",
                            "--merge", "gist-simple,gist-full")
    assert "routes for 19 of 19 operations" in summary(report), summary(report)
    assert spec["mappings"]["gistSimple"]["entity"] == spec["mappings"]["gistFull"]["entity"]
    assert "Repository" not in spec["entities"] and "Issue" not in spec["entities"]
    assert any(line.startswith("merged into ") and "gist-full, gist-simple (gist-full: --merge)" in line for line in report)


def write_document(tmp_path, schemas, paths=None):
    document = tmp_path / "doc.json"
    document.write_text(json.dumps({"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": paths or {},
                                    "components": {"schemas": schemas}}))
    return document


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def test_all_of_cycles_and_diamonds_draft_quickly_and_keep_deep_properties(tmp_path):
    # A schema built on itself, and 16 levels each built on the next twelve times over (12^16 walks
    # without memory of what was resolved).
    schemas = {"A": {"allOf": [ref("A"), {"type": "object", "properties": {"id": {"type": "integer"}, "child": ref("A")}}]},
               "B": {"type": "object", "properties": {"id": {"type": "integer"}, "a": ref("A")}}}
    for level in range(16):
        parts = [ref(f"L{level + 1}")] * 12 if level < 15 else []
        schemas[f"L{level}"] = {"allOf": parts + [{"type": "object", "properties": {f"p{level}": {"type": "integer"}}}]}
    schemas["L15"] = {"type": "object", "properties": {"id": {"type": "integer"}, "p15": {"type": "integer"}}}
    spec, out, report = draft(tmp_path, write_document(tmp_path, schemas), "--no-merge")
    assert run("check", out).returncode == 0
    assert spec["entities"]["A"]["attributes"] == {"id": "integer"}
    assert spec["entities"]["A"]["relationships"] == {"child": {"entity": "A"}}
    assert spec["mappings"]["l0"]["attributes"] == {**{f"p{level}": f"p{level}" for level in range(16)}, "id": "id"}


def test_a_discriminator_by_bare_names_and_a_choice_without_one(tmp_path):
    animal = {"type": "object", "properties": {"id": {"type": "integer"}, "kind": {"type": "string"}}}
    schemas = {"Animal": animal,
               "Dog": {"allOf": [ref("Animal"), {"properties": {"bark": {"type": "string"}}}]},
               "Cat": {"allOf": [ref("Animal"), {"properties": {"meow": {"type": "string"}}}]},
               "Zoo": {"type": "object", "properties": {
                   "id": {"type": "integer"},
                   "named": {"type": "array", "items": {"oneOf": [ref("Dog"), ref("Cat")],
                                                         "discriminator": {"propertyName": "kind", "mapping": {"d": "Dog", "c": "Cat"}}}},
                   "unnamed": {"type": "array", "items": {"oneOf": [ref("Dog"), ref("Cat")]}}}}}
    spec, out, report = draft(tmp_path, write_document(tmp_path, schemas, {"": {"get": {"responses": {}}}}))
    assert spec["mappings"]["zooNamedChoice"] == {"dynamic": {"keyPath": "kind", "cases": {"c": "cat", "d": "dog"}}}
    assert spec["mappings"]["zoo"]["relationships"]["unnamed"] == {"keyPath": "unnamed", "mapping": "animal"}
    assert "Zoo.unnamed: a choice of Dog, Cat without a discriminator, mapped as Animal by animal" in report
    assert "skipped GET : an empty path" in report
    assert run("check", out).returncode == 0


def test_githubs_comments_and_grants_stay_apart(tmp_path):
    # Comments on commits, gists and issues share most properties but are different resources with
    # ids of their own: one object for two of them would lose one.
    spec, _, report = draft(tmp_path, OPENAPI / "github-api.github.com.json")
    entities = {name: spec["mappings"][name]["entity"] for name in
                ("commitComment", "gistComment", "issueComment", "applicationGrant", "authorization", "teamDiscussion",
                 "teamDiscussionComment")}
    assert len(set(entities.values())) == len(entities), entities


def test_githubs_routes_reach_parameters_through_relationships(tmp_path):
    spec, out, _ = draft(tmp_path, OPENAPI / "github-api.github.com.json")
    assert {"entity": "Issue", "method": "GET", "path": "/repos/:repository.owner.login/:repository.name/issues/:number"} \
        in spec["routes"]
    assert {"entity": "Team", "method": "GET", "path": "/orgs/:organization.login/teams/:slug"} in spec["routes"]
    # An entity's route is its own path: not /issues/{issue_number}/assignees, whose DELETE returns an issue.
    assert not any(route.get("entity") == "Issue" and route["path"].endswith("/assignees") for route in spec["routes"])
    sys.path.insert(0, str(ROOT / "bindings" / "python" / "src"))
    import mapping
    with mapping.Context(out.read_text()) as ctx:
        [issue] = ctx.import_json("issue", (SAMPLES / "github_issue.json").read_bytes())
        assert ctx.route_path(issue, "GET") == "/repos/octocat/Hello-World/issues/1347"
        assert ctx.route_path(issue, "PATCH") == "/repos/octocat/Hello-World/issues/1347"
