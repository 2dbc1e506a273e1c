"""ObjectList: the immutable sequence every call that returns objects gives (the library's list is a
snapshot), compatible with the lists it replaced for reading, comparing and concatenating."""
import collections.abc
import json

import pytest

import mapping

PEOPLE = {"data": {"people": [
    {"id": 1, "name": "Ada", "phones": [{"number": "1-1"}, {"number": "1-2"}]},
    {"id": 2, "name": "Grace"},
    {"id": 3, "name": "Linus"},
]}}


@pytest.fixture
def people(ctx):
    return ctx.import_json("person", PEOPLE)


def test_every_call_returning_objects_gives_an_object_list(ctx, people):
    ada = people[0]
    results = [people, ctx.all("Person"), ctx.fetch("Person", "id > %@", 1), ada.related("phones"),
               ctx.import_json(["person"], PEOPLE)]
    for result in results:
        assert type(result) is mapping.ObjectList
        assert isinstance(result, collections.abc.Sequence)
        assert not isinstance(result, list)
    assert [len(result) for result in results] == [3, 3, 2, 2, 3]


def test_it_reads_as_a_sequence(people):
    ada, grace, linus = people
    assert len(people) == 3 and bool(people)
    assert people[0] == ada and people[-1] == linus
    assert list(reversed(people)) == [linus, grace, ada]
    assert grace in people and "Grace" not in people
    assert people.index(linus) == 2 and people.count(grace) == 1
    assert [person["name"] for person in people] == ["Ada", "Grace", "Linus"]
    with pytest.raises(IndexError):
        people[3]
    assert type(people[1:]) is list and people[1:] == [grace, linus]
    assert people[::-1] == [linus, grace, ada]


def test_it_cannot_be_changed(people):
    ada = people[0]
    with pytest.raises(TypeError):
        people[0] = people[1]
    with pytest.raises(TypeError):
        del people[0]
    for name in ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse"):
        assert not hasattr(people, name), name
    combined = people
    combined += [ada]  # as with a tuple, += makes a new (plain) list and leaves the original alone
    assert type(combined) is list and len(combined) == 4
    assert len(people) == 3 and people[0] == ada


def test_it_equals_lists_tuples_and_object_lists_of_the_same_objects(ctx, people):
    ada, grace, linus = people
    assert people == [ada, grace, linus] and [ada, grace, linus] == people
    assert people == (ada, grace, linus)
    assert people == ctx.all("Person") == ctx.fetch("Person", sort="id")
    assert people != [ada, linus, grace]
    assert people != [ada, grace]
    assert people != ctx.fetch("Person", sort="-id")
    assert people != "Ada"
    assert ctx.fetch("Person", "id > 10") == [] and not ctx.fetch("Person", "id > 10")
    with pytest.raises(TypeError):
        hash(people)  # equal to lists, so unhashable like them


def test_concatenation_gives_a_plain_list(people):
    ada, grace, linus = people
    phones = ada.related("phones")
    assert people + phones == [ada, grace, linus, *phones] and type(people + phones) is list
    assert [linus] + people == [linus, ada, grace, linus]
    assert people + (ada,) == [ada, grace, linus, ada]
    with pytest.raises(TypeError):
        people + 1


def test_the_library_list_is_handed_over_by_calls_that_take_lists(ctx, people):
    ada, grace, _ = people
    phones = ada.related("phones")
    assert phones._library_list(ctx) is not None
    grace.set_related("phones", phones)  # an ObjectList is accepted where a list of objects is
    assert [phone["number"] for phone in grace.related("phones")] == ["1-1", "1-2"]
    assert ada.related("phones") == []
    moved = grace.related("phones")
    assert ctx.serialize("phone", moved) == ctx.serialize("phone", list(moved)) == \
        '[{"number":"1-1"},{"number":"1-2"}]'



def test_repr_lists_the_objects(people):
    assert repr(people) == "ObjectList([<Person id=1>, <Person id=2>, <Person id=3>])"


def test_the_list_answers_from_its_handles_without_making_every_object(spec, fixtures):
    """Objects are made when read: a large import's list holds only handles, and every Sequence
    operation still answers as a tuple of its Objects would."""
    import tracemalloc
    payload = json.dumps({"data": {"people": [{"id": n, "name": f"P{n}"} for n in range(20_000)]}}).encode()
    with mapping.Context(spec) as ctx:
        tracemalloc.start()
        people = ctx.import_json("person", payload)
        held, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(people) == 20_000
        assert held < 20_000 * 16, f"the list held {held} bytes for 20,000 handles"  # an Object each would be ~56
        everything = tuple(people)
        assert people[-1] == everything[-1] and people[-1]["id"] == 19_999
        assert people[5:8] == list(everything[5:8])
        assert list(reversed(people))[:2] == [everything[-1], everything[-2]]
        assert everything[7] in people and people.index(everything[7]) == 7 and people.count(everything[7]) == 1
        assert "x" not in people and people.count("x") == 0
        with pytest.raises(ValueError):
            people.index("x")
        assert people == everything and people == list(everything) and people != everything[:-1]
        with pytest.raises(IndexError):
            people[20_000]
