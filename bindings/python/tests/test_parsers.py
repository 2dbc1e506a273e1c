"""The parser backends from Python: choosing one per context and per import, the same graph from
both, and malformed JSON reported alike."""
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
