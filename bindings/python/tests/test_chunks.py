"""Chunked imports of large arrays and JSON Lines: the same graph as one import, all or nothing
across chunks, parse errors located in the whole input, progress across chunks."""
import json

import pytest

import mapping

SPEC = {
    "entities": {
        "Person": {"attributes": {"id": "integer", "name": "string"},
                   "relationships": {"company": {"entity": "Company", "inverse": "staff"}}},
        "Company": {"attributes": {"id": "integer", "name": "string"},
                    "relationships": {"staff": {"entity": "Person", "toMany": True, "inverse": "company"}}},
    },
    "mappings": {
        "person": {"entity": "Person", "rootPath": "people", "attributes": {"id": "id", "name": "name"},
                   "relationships": {"company": {"mapping": "company"}}},
        "company": {"entity": "Company", "attributes": {"id": "id", "name": "name"}},
    },
}

PEOPLE = [{"id": i, "name": f"P{i}", "company": {"id": i % 3, "name": f"C{i % 3}"}} for i in range(25)]


def graph(ctx):
    return sorted((p["id"], p["name"], p.related("company")["id"]) for p in ctx.all("Person")), ctx.count("Company")


@pytest.mark.parametrize("chunk_size", [1, 4, 25, 1000])
def test_chunks_build_the_same_graph_as_one_import(chunk_size):
    with mapping.Context(SPEC) as whole, mapping.Context(SPEC) as chunked, mapping.Context(SPEC) as lines:
        whole.import_json("person", {"people": PEOPLE})
        assert chunked.import_chunked("person", json.dumps(PEOPLE, indent=2), chunk_size=chunk_size) == 25
        text = "\n".join(json.dumps(p) for p in PEOPLE) + "\n\n"
        assert lines.import_chunked("person", text, lines=True, chunk_size=chunk_size) == 25
        assert graph(chunked) == graph(whole) == graph(lines)
        assert whole.count("Company") == 3


def test_a_failure_in_a_later_chunk_keeps_nothing():
    with mapping.Context(SPEC) as ctx:
        ctx.import_json("person", {"people": [{"id": 0, "name": "Before"}]})
        bad = PEOPLE[:10] + [{"id": "not a number"}]
        with pytest.raises(mapping.WrongTypeError):
            ctx.import_chunked("person", json.dumps(bad), chunk_size=3)
        assert ctx.count("Person") == 1 and ctx.all("Person")[0]["name"] == "Before"
        assert ctx.count("Company") == 0


def test_parse_errors_point_into_the_whole_input():
    with mapping.Context(SPEC) as ctx:
        text = '[\n {"id": 1},\n {"id": 2},\n {"id": 3, "name": tru}\n]'
        with pytest.raises(mapping.ParseError) as caught:
            ctx.import_chunked("person", text, chunk_size=1)
        assert (caught.value.line, caught.value.column) == (4, 22) and "invalid token" in str(caught.value)
        assert ctx.count("Person") == 0  # chunks 1 and 2 were imported, then undone
        with pytest.raises(mapping.ParseError) as caught:
            ctx.import_chunked("person", '{"id": 1}')
        assert "not a JSON array" in str(caught.value) and caught.value.line == 1
        # An unclosed array, data after it, a trailing comma: the plain import's error, word for word.
        for text in ['[{"id": 1},\n {"id": 2}', '[{"id": 1}] x', '[{"id": 1},\n {"id": 2},\n]']:
            with pytest.raises(mapping.ParseError) as plain:
                ctx.import_json("person", text)
            with pytest.raises(mapping.ParseError) as caught:
                ctx.import_chunked("person", text, chunk_size=1)
            assert str(caught.value) == str(plain.value)
            assert (caught.value.line, caught.value.column, caught.value.position) == \
                (plain.value.line, plain.value.column, plain.value.position)
        with pytest.raises(mapping.ParseError) as caught:
            ctx.import_chunked("person", '{"id": 1}\n{"id": 2,}\n', lines=True)
        assert caught.value.line == 2
        assert ctx.count("Person") == 0


def test_strings_with_brackets_commas_and_escapes_do_not_split():
    tricky = [{"id": 1, "name": 'a, "b" ] } [ {'}, {"id": 2, "name": "\\\\"}, {"id": 3, "name": 'x\\"],'}]
    with mapping.Context(SPEC) as ctx:
        assert ctx.import_chunked("person", json.dumps(tricky), chunk_size=1) == 3
        assert sorted(p["name"] for p in ctx.all("Person")) == sorted(t["name"] for t in tricky)
        assert ctx.import_chunked("person", "[ ]") == 0


def test_progress_counts_across_chunks_and_transactions_are_joined():
    with mapping.Context(SPEC) as ctx:
        seen = []
        ctx.import_chunked("person", json.dumps(PEOPLE), chunk_size=10, progress_interval=5,
                           on_progress=lambda done, known: seen.append(done))
        assert seen == sorted(seen) and seen[-1] == 50  # 25 people + 25 company mappings
        with pytest.raises(mapping.MappingError):
            with ctx.transaction():
                ctx.import_chunked("person", json.dumps([{"id": 100, "name": "In"}]))
                raise mapping.MisuseError("give up")
        assert ctx.get("Person", 100) is None
