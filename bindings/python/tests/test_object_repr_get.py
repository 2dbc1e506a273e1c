"""Object's repr (the entity and the identity, as the library identifies the object) and Object.get
(dict.get's meaning: the default for a null or unset attribute, an error for an unknown one)."""
import re

import pytest

import mapping

SPEC = {
    "entities": {
        "ArcticMonkey": {"attributes": {"id": "integer", "arcticMonkeyID": "integer", "name": "string"}},
        "URLThing": {"attributes": {"url": "string", "url_thing_id": "string"}},
        "Pair": {"attributes": {"a": "integer", "b": "string"}, "identification": "a, b"},
        "Note": {"attributes": {"id": "integer", "text": "string"}, "identification": None},
        "Animal": {"attributes": {"id": "integer", "tag": "string"}, "identification": ["tag"]},
        "Dog": {"parent": "Animal", "attributes": {"breed": "string"}},
        "Plain": {"attributes": {"text": "string"}},
        "Reading": {"attributes": {"id": "integer", "value": "double", "ok": "boolean", "label": "string",
                                   "extra": "json"}},
    },
    "mappings": {"reading": {"entity": "Reading", "attributes": {"id": "id"}}},
}


@pytest.fixture
def graph():
    with mapping.Context(SPEC) as ctx:
        yield ctx


def test_repr_shows_entity_and_identity(ctx):
    ada = ctx.import_json("person", {"data": {"people": [{"id": 1, "name": "Ada"}]}})[0]
    assert repr(ada) == "<Person id=1>"
    phone = ctx.create("Phone", number="555-0100")
    assert repr(phone) == "<Phone number='555-0100'>"
    assert str(ada) == repr(ada)


def test_repr_follows_the_libraries_identification(graph):
    monkey = graph.create("ArcticMonkey", id=1, arcticMonkeyID=5, name="Alex")
    assert repr(monkey) == "<ArcticMonkey arcticMonkeyID=5>"
    assert graph.get("ArcticMonkey", 5) == monkey and graph.get("ArcticMonkey", 1) is None, \
        "the library identifies by the inferred <llamaCased>ID too"
    thing = graph.create("URLThing", url="http://x", url_thing_id="t1")
    assert repr(thing) == "<URLThing url_thing_id='t1'>"
    assert graph.get("URLThing", "t1") == thing
    pair = graph.create("Pair", a=1, b="x")
    assert repr(pair) == "<Pair a=1 b='x'>"
    assert graph.get("Pair", [1, "x"]) == pair
    dog = graph.create("Dog", id=3, tag="rex", breed="collie")
    assert repr(dog) == "<Dog tag='rex'>", "a sub-entity inherits its parent's identification"
    assert graph.get("Animal", "rex") == dog
    note = graph.create("Note", id=9, text="hi")
    assert re.fullmatch(r"<Note #\d+>", repr(note)), "identification null: no identity to show"
    plain = graph.create("Plain", text="hi")
    assert re.fullmatch(r"<Plain #\d+>", repr(plain))
    assert repr(graph.create("ArcticMonkey", name="stub")) == "<ArcticMonkey arcticMonkeyID=None>"


def test_repr_of_an_unreadable_object(spec):
    ctx = mapping.Context(spec)
    ada = ctx.create("Person", id=1)
    ctx.delete(ada)
    assert re.fullmatch(r"<mapping\.Object #\d+ \(unreadable\)>", repr(ada))
    grace = ctx.create("Person", id=2)
    ctx.close()
    assert "unreadable" in repr(grace)


def test_get_is_dict_get(graph):
    reading = graph.create("Reading", id=1, value=0.0, ok=False, label="")
    assert reading.get("id") == 1
    assert reading.get("value", 5.0) == 0.0 and reading.get("ok", True) is False and reading.get("label", "x") == "", \
        "falsy values are values, not missing"
    reading["label"] = None
    assert reading.get("label") is None and reading.get("label", "none") == "none", "null gives the default"
    assert reading.get("extra", default={}) == {}, "never set gives the default"
    with pytest.raises(mapping.UnknownNameError):
        reading.get("nickname", "default")  # an attribute the entity lacks is an error, as ada["nickname"]
    with pytest.raises(LookupError):
        reading.get("nickname")


def test_reading_an_attribute_whose_name_has_one_type_or_several():
    """obj[attr] skips asking for the object's entity when the name has one type in the whole model;
    a name with several types, and a name another entity has, still read and fail as before."""
    spec = {"entities": {"A": {"attributes": {"id": "integer", "value": "string", "only": "boolean"}},
                         "B": {"attributes": {"id": "integer", "value": "double"}}},
            "mappings": {"a": {"entity": "A", "attributes": {"id": "id", "value": "value", "only": "only"}},
                         "b": {"entity": "B", "attributes": {"id": "id", "value": "value"}}}}
    with mapping.Context(spec) as ctx:
        a = ctx.import_json("a", {"id": 1, "value": "text", "only": True})[0]
        b = ctx.import_json("b", {"id": 2, "value": 2.5})[0]
        assert ctx.type_by_name("id") == mapping._ffi.TYPE_INTEGER
        assert ctx.type_by_name("value") is None
        assert (a["id"], a["value"], a["only"]) == (1, "text", True)
        assert (b["id"], b["value"]) == (2, 2.5)
        with pytest.raises(mapping.UnknownNameError) as caught:
            b["only"]
        assert "has no attribute \"only\"" in str(caught.value)
        with pytest.raises(mapping.UnknownNameError):
            a["nothing"]
