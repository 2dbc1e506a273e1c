"""Predicate conformance: results and errors (with columns) of the query language
through ctx.fetch / ctx.count, on a small graph with every attribute type."""
import datetime
import decimal

import pytest

import mapping

PEOPLE = {"data": {"people": [
    {"id": 1, "name": "Ada Lovelace", "age": 36, "score": 9.5, "weight": "61.25", "active": True,
     "born": "1815-12-10", "address": {"city": "London"}, "tags": ["math", "engines"],
     "company": {"id": 10, "name": "Analytical"},
     "phones": [{"number": "+44-1", "kind": "home"}, {"number": "+44-2", "kind": "work"}]},
    {"id": 2, "name": "Grace Hopper", "age": 85, "score": 7, "weight": "70", "active": True,
     "born": "1906-12-09", "address": {"city": "New York"}, "tags": ["cobol"],
     "company": {"id": 11, "name": "Navy"}, "phones": [{"number": "+1-1", "kind": "work"}]},
    {"id": 3, "name": "Émile Zola", "age": 62, "active": False, "born": "1840-04-02", "address": {"city": "Paris"},
     "tags": [], "phones": []},
    {"id": 4, "name": "Linus Torvalds", "score": 8.25, "weight": "80.5", "active": False,
     "born": "1969-12-28", "address": {"city": "Helsinki"}, "company": {"id": 10},
     "phones": [{"number": "+358-1", "kind": "mobile"}, {"number": "+358-2", "kind": "work"},
                {"number": "+358-3", "kind": "home"}]},
    {"id": 5, "name": "bob", "age": 20, "score": 1e-3, "active": True, "born": 0,
     "company": {"id": 11}, "phones": [{"number": "+1-2", "kind": "mobile"}]},
]}}


def indexed(spec):
    """The same spec with every scalar attribute indexed: queries must answer exactly as by scanning."""
    for entity in spec["entities"].values():
        for name, declared in list(entity.get("attributes", {}).items()):
            kind = declared if isinstance(declared, str) else declared["type"]
            if kind != "json":
                entity["attributes"][name] = {"type": kind, "indexed": True}
    return spec


@pytest.fixture(scope="module", params=["scanned", "indexed"])
def graph(request):
    import json
    from pathlib import Path
    spec = json.loads((Path(__file__).resolve().parents[3] / "Tests" / "fixtures" / "people.spec.json").read_text())
    if request.param == "indexed":
        spec = indexed(spec)
    context = mapping.Context(spec)
    context.import_json("person", PEOPLE)
    request.addfinalizer(context.close)
    return context


RESULTS = [
    # comparisons on every type
    ("age == 36", (), [1]),
    ("age = 36", (), [1]),
    ("age != 36", (), [2, 3, 4, 5]),
    ("age <> 36", (), [2, 3, 4, 5]),
    ("age < 36", (), [5]),
    ("age <= 36", (), [1, 5]),
    ("age =< 36", (), [1, 5]),
    ("age > 62", (), [2]),
    ("age >= 62", (), [2, 3]),
    ("age => 62", (), [2, 3]),
    ("age == '36'", (), [1]),
    ("age > 20.5", (), [1, 2, 3]),
    ("score == 7", (), [2]),
    ("score > 8", (), [1, 4]),
    ("score < 0.01", (), [5]),
    ("weight == 61.25", (), [1]),
    ("weight == '70'", (), [2]),
    ("weight > 70", (), [4]),
    ("active == YES", (), [1, 2, 5]),
    ("active == true", (), [1, 2, 5]),
    ("active == FALSE", (), [3, 4]),
    ("active == 0", (), [3, 4]),
    ("name == 'bob'", (), [5]),
    ('name == "bob"', (), [5]),
    ("name == 'BOB'", (), []),
    ("name ==[c] 'BOB'", (), [5]),
    ("name < 'B'", (), [1]),
    ("name >[c] 'l'", (), [3, 4]),
    ("born == '1815-12-10'", (), [1]),
    ("born < '1900-01-01'", (), [1, 3]),
    ("born == 0", (), [5]),
    ("born > '1969-01-01T00:00:00Z'", (), [4, 5]),
    ("born BETWEEN {'1800-01-01', '1850-01-01'}", (), [1, 3]),
    # nil
    ("age == nil", (), [4]),
    ("age = NULL", (), [4]),
    ("age != nil", (), [1, 2, 3, 5]),
    ("city == nil", (), [5]),
    ("company == nil", (), [3]),
    ("company != nil", (), [1, 2, 4, 5]),
    ("score > 100 OR score == nil", (), [3]),
    # AND OR NOT and grouping
    ("age > 30 AND active == YES", (), [1, 2]),
    ("age > 30 && active == YES", (), [1, 2]),
    ("age < 30 OR age > 80", (), [2, 5]),
    ("age < 30 || age > 80", (), [2, 5]),
    ("NOT active == YES", (), [3, 4]),
    ("! (active == YES)", (), [3, 4]),
    ("NOT (age > 30 AND active == YES)", (), [3, 4, 5]),
    ("(age > 30 OR age == nil) AND NOT active == YES", (), [3, 4]),
    ("age > 30 AND active == YES OR id == 5", (), [1, 2, 5]),
    ("TRUEPREDICATE", (), [1, 2, 3, 4, 5]),
    ("FALSEPREDICATE", (), []),
    # IN and BETWEEN
    ("id IN {1, 3, 5}", (), [1, 3, 5]),
    ("city IN {'Paris', 'London'}", (), [1, 3]),
    ("city IN[c] {'paris'}", (), [3]),
    ("age BETWEEN {20, 36}", (), [1, 5]),
    ("'Ada' IN name", (), [1]),
    # string operators and modifiers
    ("name BEGINSWITH 'Ada'", (), [1]),
    ("name BEGINSWITH[c] 'ada'", (), [1]),
    ("name ENDSWITH 'per'", (), [2]),
    ("name CONTAINS 'o'", (), [1, 2, 3, 4, 5]),
    ("name CONTAINS 'Lo'", (), [1]),
    ("name CONTAINS[c] 'lo'", (), [1]),
    ("name BEGINSWITH 'Emile'", (), []),
    ("name BEGINSWITH[d] 'Emile'", (), [3]),
    ("name BEGINSWITH[cd] 'emile'", (), [3]),
    ("name LIKE 'b?b'", (), [5]),
    ("name LIKE '*Hop*'", (), [2]),
    ("name LIKE[c] 'LINUS*'", (), [4]),
    ("name MATCHES '[A-Z][a-z]+ [A-Z][a-z]+'", (), [1, 2, 4]),
    ("name MATCHES[c] 'BOB'", (), [5]),
    ("city MATCHES '.*i.*'", (), [3, 4]),
    # key paths through to-one, ANY/ALL/NONE and @count over to-many
    ("company.name == 'Navy'", (), [2, 5]),
    ("company.id == 10", (), [1, 4]),
    ("company.name BEGINSWITH 'Ana'", (), [1, 4]),
    ("ANY phones.kind == 'mobile'", (), [4, 5]),
    ("SOME phones.kind == 'home'", (), [1, 4]),
    ("ALL phones.kind == 'work'", (), [2, 3]),
    ("NONE phones.kind == 'work'", (), [3, 5]),
    ("phones.kind == 'home'", (), [1, 4]),
    ("phones.@count == 0", (), [3]),
    ("phones.@count >= 2", (), [1, 4]),
    ("phones@count == 1", (), [2, 5]),
    ("company.employees.@count == 2 AND age > 30", (), [1, 2]),
    ("tags CONTAINS 'math'", (), [1]),
    ("'cobol' IN tags", (), [2]),
    ("ANY tags BEGINSWITH 'eng'", (), [1]),
    # arguments, bound as values
    ("age > %@", (30,), [1, 2, 3]),
    ("name == %@", ("x' OR '1' == '1",), []),
    ("name BEGINSWITH[c] %@ AND age < %@", ("a", 40), [1]),
    ("id IN %@", ([2, 4],), [2, 4]),
    ("age BETWEEN %@", ([60, 90],), [2, 3]),
    ("born < %@", (datetime.datetime(1900, 1, 1, tzinfo=datetime.timezone.utc),), [1, 3]),
    ("weight == %@", (decimal.Decimal("80.50"),), [4]),
    ("city == %@", (None,), [5]),
    ("active == %@", (True,), [1, 2, 5]),
]


@pytest.mark.parametrize("predicate, arguments, expected", RESULTS, ids=[case[0] for case in RESULTS])
def test_predicate_results(graph, predicate, arguments, expected):
    assert [person["id"] for person in graph.fetch("Person", predicate, *arguments)] == expected
    assert graph.count("Person", predicate, *arguments) == len(expected)


ERRORS = [
    ("age >", 6),
    ("age 36", 5),
    ("== 36", 1),
    ("nickname == 'x'", 1),
    ("age == 36 AND", 14),
    ("(age == 36", 11),
    ("age == 36)", 10),
    ("name == 'open", 9),
    ("company.nope == 1", 1),
    ("age.years == 1", 1),
    ("name LIKE[x] 'a'", 11),
    ("age BETWEEN 3", 5),
    ("name MATCHES '('", 1),
    ("age # 3", 5),
    ("age == @sum", 8),
    ("age == %d", 8),
    ("AND age == 1", 1),
    ("name IN {'a', }", 15),
]


@pytest.mark.parametrize("predicate, column", ERRORS, ids=[case[0] for case in ERRORS])
def test_predicate_errors_name_the_column(graph, predicate, column):
    with pytest.raises(mapping.PredicateError) as caught:
        graph.fetch("Person", predicate)
    assert caught.value.column == column, caught.value.message
    assert f"column {column}" in caught.value.message


def test_argument_count_must_match(graph):
    with pytest.raises(mapping.PredicateError):
        graph.fetch("Person", "age > %@ AND age < %@", 1)


def test_sort_limit_offset(graph):
    assert [p["id"] for p in graph.fetch("Person", sort="-age")] == [2, 3, 1, 5, 4]  # nil last when descending
    assert [p["id"] for p in graph.fetch("Person", sort="age")] == [4, 5, 1, 3, 2]
    assert [p["id"] for p in graph.fetch("Person", sort=["active", "-score"])] == [4, 3, 1, 2, 5]
    assert [p["id"] for p in graph.fetch("Person", sort="company.name,name")] == [3, 1, 4, 2, 5]
    assert [p["id"] for p in graph.fetch("Person", "active == YES", sort="name", limit=2)] == [1, 2]
    assert [p["id"] for p in graph.fetch("Person", sort="phones.@count,id", offset=1, limit=2)] == [2, 5]
    assert graph.fetch("Person", offset=10) == []
    with pytest.raises(mapping.PredicateError):
        graph.fetch("Person", sort="age,,name")
    with pytest.raises(mapping.PredicateError):
        graph.fetch("Person", sort="shoeSize")
    with pytest.raises(mapping.UnknownNameError):
        graph.fetch("Martian")


def test_hostile_predicates_fail_cleanly(graph):
    with pytest.raises(mapping.PredicateError):
        graph.fetch("Person", "(" * 100_000 + "age == 1" + ")" * 100_000)
    with pytest.raises(mapping.PredicateError):
        graph.fetch("Person", "NOT " * 100_000 + "age == 1")
    assert graph.fetch("Person", "name LIKE %@", "*" * 5_000 + "x" * 50_000) == []
    assert [p["id"] for p in graph.fetch("Person", "name LIKE 'A*a*e'")] == [1]
    assert [p["id"] for p in graph.fetch("Person", "name LIKE '*\\\\**'")] == []


def test_matches_runs_in_linear_time(graph):
    """A backtracking engine takes about a minute on this; the library's matcher is linear."""
    ada = graph.fetch("Person", "id == 1")[0]
    ada["name"] = "a" * 30 + "!"
    assert graph.fetch("Person", "name MATCHES '(a+)+b'") == []
    assert graph.fetch("Person", "name MATCHES %@", "(a|aa)*!") == [ada]
    with pytest.raises(mapping.PredicateError, match="not supported"):
        graph.fetch("Person", "name MATCHES '(a)\\\\1'")


def test_indexes_follow_changes_and_rollbacks():
    import json
    from pathlib import Path
    spec = indexed(json.loads((Path(__file__).resolve().parents[3] / "Tests" / "fixtures" / "people.spec.json").read_text()))
    with mapping.Context(spec) as ctx:
        ctx.import_json("person", PEOPLE)
        ada = ctx.get("Person", 1)
        assert [p["id"] for p in ctx.fetch("Person", "age >= 36")] == [1, 2, 3]
        ada["age"] = 10
        assert [p["id"] for p in ctx.fetch("Person", "age >= 36")] == [2, 3]
        assert [p["id"] for p in ctx.fetch("Person", "age == 10")] == [1]
        with pytest.raises(RuntimeError):
            with ctx.transaction():
                ada["age"] = 99
                ctx.delete(ctx.get("Person", 2))
                ctx.create("Person", id=9, age=36)
                assert [p["id"] for p in ctx.fetch("Person", "age >= 36")] == [1, 3, 9]
                raise RuntimeError("undo")
        assert [p["id"] for p in ctx.fetch("Person", "age >= 36")] == [2, 3]
        assert [p["id"] for p in ctx.fetch("Person", "age IN {10, 85}")] == [1, 2]
        ctx.delete(ada)
        assert ctx.fetch("Person", "age == 10") == []


def test_json_attributes_compare_as_values():
    """A `json` attribute in a predicate: null and missing are nil; an object equals an object with
    the same members in the same order (the payload's order is kept); scalars compare as scalars;
    an array is compared by its elements, objects among them (as a key path through a to-many is),
    so one holding null equals nil. Objects are compared as their kept text, not parsed: the
    results are those of parsing each value."""
    spec = {"entities": {"Thing": {"attributes": {"id": "integer", "extra": "json"}, "identification": "id"}},
            "mappings": {"thing": {"entity": "Thing", "attributes": {"id": "id", "extra": "extra"}}}}
    things = [{"id": 1, "extra": {"a": 1, "b": [1, 2]}}, {"id": 2, "extra": {"b": [1, 2], "a": 1}},
              {"id": 3, "extra": None}, {"id": 4}, {"id": 5, "extra": 7}, {"id": 6, "extra": "x"},
              {"id": 7, "extra": [{"a": 1}, 2]}, {"id": 8, "extra": 1.5}, {"id": 9, "extra": {}},
              {"id": 10, "extra": [None, "null"]}]
    ctx = mapping.Context(spec)
    try:
        ctx.import_json("thing", things)

        def ids(predicate, *arguments):
            return sorted(obj["id"] for obj in ctx.fetch("Thing", predicate, *arguments))

        assert ids("extra == nil") == [3, 4, 10]
        assert ids("extra != nil") == [1, 2, 5, 6, 7, 8, 9, 10]
        assert ids("extra == %@", {"a": 1, "b": [1, 2]}) == [1]
        assert ids("extra == %@", {"b": [1, 2], "a": 1}) == [2]
        assert ids("extra != %@", {"a": 1, "b": [1, 2]}) == [2, 3, 4, 5, 6, 7, 8, 9, 10]
        assert ids("extra == %@", {}) == [9]
        assert ids("extra == 7") == [5]
        assert ids("extra > 6") == [5]
        assert ids("extra == 'x'") == [6]
        assert ids("extra == 1.5") == [8]
        assert ids("extra == %@", decimal.Decimal("1.5")) == [8]
        assert ids("%@ IN extra", {"a": 1}) == [7]
        assert ids("extra CONTAINS 2") == [7]
        assert ids("extra CONTAINS nil") == [10]
        assert ids("extra CONTAINS 'null'") == [10]
        assert ids("ANY extra == %@", {"a": 1}) == [7]
    finally:
        ctx.close()
