"""The parser backends from Python: choosing one per context and per import, the same graph from
both, and malformed JSON reported alike."""
import json
import os
import subprocess
import sys
import random

import pytest

import mapping

SIMDJSON = "simdjson" in mapping.available_parsers()
needs_simdjson = pytest.mark.skipif(not SIMDJSON, reason="this build has no simdjson parser")


def graph(ctx):
    return [person.to_dict() for person in ctx.all("Person")]


def test_jansson_is_always_there_and_names_are_checked(spec):
    assert mapping.available_parsers()[0] == "jansson"
    with pytest.raises(ValueError, match="unknown parser"):
        mapping.Context(spec, parser="rapidjson")


@pytest.mark.skipif(SIMDJSON, reason="this build has simdjson")
def test_a_build_without_simdjson_says_so(spec):
    with pytest.raises(mapping.UnavailableError, match="simdjson"):
        mapping.Context(spec, parser="simdjson")


@needs_simdjson
def test_both_parsers_build_the_same_graph(spec, fixtures):
    payload = (fixtures / "people.json").read_bytes()
    update = (fixtures / "people_update.json").read_bytes()
    graphs = []
    for parser in ("jansson", "simdjson"):
        with mapping.Context(spec, parser=parser) as ctx:
            ctx.import_json("person", payload)
            ctx.import_json("person", update)
            graphs.append(graph(ctx))
    assert graphs[0] == graphs[1]
    assert {person["name"] for person in graphs[0]} >= {"Ada Lovelace"}


@needs_simdjson
def test_per_import_choice_and_chunks(ctx, fixtures):
    objects = ctx.import_json("person", (fixtures / "people.json").read_bytes(), parser="simdjson")
    assert [person["id"] for person in objects] == [1, 2, 1]
    lines = b'{"id": 7, "name": "Seven"}\n{"id": 8, "name": "Eight"}\n'
    assert ctx.import_chunked("person", lines, lines=True, chunk_size=1, parser="simdjson") == 2
    assert ctx.get("Person", 8)["name"] == "Eight"


@needs_simdjson
@pytest.mark.parametrize("text", ['{"data": {"people": [\n {"id": 1,, "name": "x"}]}}', "[1, 2",
                                  '{"data": {"people": [{"id": 18446744073709551615}]}}'])
def test_malformed_json_is_reported_alike(ctx, text):
    errors = []
    for parser in ("jansson", "simdjson"):
        with pytest.raises(mapping.ParseError) as caught:
            ctx.import_json("person", text, parser=parser)
        errors.append((str(caught.value), caught.value.line, caught.value.column, caught.value.position))
    assert errors[0] == errors[1]
    assert errors[0][1] >= 1 and errors[0][2] >= 1
    assert ctx.count("Person") == 0


FUZZ_SPEC = {
    "entities": {
        "Doc": {"attributes": {"id": "integer", "body": "json", "title": "string", "count": "double"},
                "identification": "id", "relationships": {"parts": {"entity": "Part", "toMany": True, "ordered": True}}},
        "Part": {"attributes": {"key": "string", "value": "json"}, "identification": "key"},
    },
    "mappings": {
        "doc": {"entity": "Doc", "attributes": {"id": "id", "body": "body", "title": "title", "count": "count"},
                "relationships": {"parts": {"keyPath": "parts", "mapping": "part"}}},
        "part": {"entity": "Part", "attributes": {"key": "key", "value": "value"}},
    },
}


def random_value(rnd, depth=0):
    kinds = ["int", "float", "str", "bool", "null"] + (["list", "dict"] if depth < 4 else [])
    kind = rnd.choice(kinds)
    if kind == "int":
        return rnd.choice([0, -1, 1, rnd.randint(-2**63, 2**63 - 1), rnd.randint(-1000, 1000)])
    if kind == "float":
        return rnd.choice([0.5, -0.0, 1e-300, 1.7976931348623157e308, rnd.uniform(-1e6, 1e6)])
    if kind == "str":
        alphabet = "abc \"\\/\n\t\u00e9\u4e2d\U0001f600\u0000\u001f"
        return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
    if kind == "bool":
        return rnd.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 5))]
    return {f"k{rnd.randint(0, 6)}": random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 5))}


@needs_simdjson
def test_random_documents_give_the_same_graph_with_both_parsers():
    """Differential fuzzing: random documents (escapes, non-ASCII, NUL, extreme numbers, nesting,
    repeated identities, duplicated keys) imported with each parser must leave identical graphs or
    fail with the same error."""
    rnd = random.Random(20261122)
    for round_ in range(60):
        docs = [{"id": rnd.randint(1, 8), "body": random_value(rnd), "title": random_value(rnd) if rnd.random() < 0.2 else "t",
                 "count": rnd.choice([1, 2.5, -0.0, 1e300]),
                 "parts": [{"key": rnd.choice(["a", "b", "\u00e9", "x\"y"]), "value": random_value(rnd)}
                           for _ in range(rnd.randint(0, 4))]}
                for _ in range(rnd.randint(1, 6))]
        text = json.dumps(docs, ensure_ascii=rnd.random() < 0.5)
        if rnd.random() < 0.4:  # duplicated keys, in a mapped object and inside a json value
            text = text.replace('"count": ', '"count": 7, "count": ', 1).replace('"k1": ', '"k1": [0], "k1": ', 1)
        outcomes = []
        for parser in ("jansson", "simdjson"):
            with mapping.Context(FUZZ_SPEC, parser=parser) as ctx:
                try:
                    ctx.import_json("doc", text)
                    outcome = ("ok", sorted(json.dumps(doc.to_dict(), sort_keys=True) for doc in ctx.all("Doc")),
                               sorted(json.dumps(part.to_dict(), sort_keys=True) for part in ctx.all("Part")))
                except mapping.MappingError as error:
                    outcome = ("error", type(error).__name__, str(error))
            outcomes.append(outcome)
        assert outcomes[0] == outcomes[1], f"round {round_}: {text[:300]}"


def test_the_simdjson_plugin_is_there_when_the_build_has_it():
    """libmapping.so loads the simdjson parser at run time (libmapping-simdjson.so beside it): a
    build with simdjson that cannot load it must fail here, not skip the simdjson tests."""
    if os.environ.get("MAPPING_SIMDJSON") == "0":
        pytest.skip("built with MAPPING_SIMDJSON=0")
    assert SIMDJSON, "the simdjson plugin did not load"


def test_without_its_plugin_the_simdjson_parser_says_why(fixtures):
    """A machine without libsimdjson (simulated: the plugin path points nowhere) still loads the
    library; the simdjson parser reports itself unavailable and says why; jansson works."""
    spec = fixtures / "people.spec.json"
    script = f"""
import mapping
assert mapping.available_parsers() == ["jansson"], mapping.available_parsers()
try:
    mapping.Context({str(spec)!r}, parser="simdjson")
except mapping.UnavailableError as error:
    print(error.message)
with mapping.Context({str(spec)!r}) as ctx:
    print(len(ctx.import_json("person", b'{{"data": {{"people": [{{"id": 1}}]}}}}')))
"""
    env = dict(os.environ, MAPPING_SIMDJSON_PLUGIN="/nonexistent/libmapping-simdjson.so",
               PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["the simdjson parser is not available: cannot load its plugin (/nonexistent/libmapping-simdjson.so: "
                                "cannot open shared object file: No such file or directory)", "1"]
