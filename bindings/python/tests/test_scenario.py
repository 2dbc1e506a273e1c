"""The spine's scenario through the Python binding: uniquing, last values, every attribute type,
relationships both ways, updates in place, serialization back to the input's shape."""
import datetime
import decimal
import json

import mapping


def test_one_object_per_identity_with_the_last_values(ctx, fixtures):
    top = ctx.import_json("person", (fixtures / "people.json").read_bytes())
    assert len(top) == 3
    assert top[0] == top[2] and hash(top[0]) == hash(top[2])  # "1" and 1 are one identity
    assert top[0] != top[1]
    assert (ctx.count("Person"), ctx.count("Company"), ctx.count("Phone")) == (2, 2, 3)

    ada = ctx.get("Person", 1)
    assert ada == top[0] and ada.entity == "Person"
    assert ada["name"] == "Ada Lovelace"
    assert ada["age"] == 36
    assert ada["score"] == 9.5
    assert ada["weight"] == decimal.Decimal("61.25")
    assert ada["active"] is True
    assert ada["born"] == datetime.datetime(1815, 12, 10, tzinfo=datetime.timezone.utc)
    assert ada["tags"] == ["math", {"engines": 2}]
    assert ada["city"] == "London"
    grace = ctx.get("Person", "2")
    assert grace["born"] == datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=datetime.timezone.utc)
    assert grace["weight"] is None
    assert grace.to_dict() == {"id": 2, "name": "Grace", "age": 85, "score": 7.0, "weight": None, "active": True,
                               "born": grace["born"], "tags": None, "city": None}

    difference = ada.related("company")
    assert difference == ctx.get("Company", 11)
    assert difference.related("employees") == [ada]
    analytical = ctx.get("Company", 10)
    assert analytical["name"] == "Analytical Engines Ltd"
    assert analytical.related("employees") == [grace]
    phones = ada.related("phones")
    assert [phone["number"] for phone in phones] == ["+44-1", "+44-2"]
    assert all(phone.related("owner") == ada for phone in phones)
    assert ctx.get("Person", 99) is None


def test_reimport_updates_in_place(ctx, fixtures):
    first = ctx.import_json("person", (fixtures / "people.json").read_bytes())
    updated = ctx.import_json("person", (fixtures / "people_update.json").read_text())
    grace = updated[0]
    assert grace == first[1]
    assert ctx.count("Person") == 3 and ctx.count("Company") == 2
    assert grace["name"] == "Grace Hopper" and grace["age"] == 86
    assert grace.related("company") == ctx.get("Company", 11)
    assert ctx.get("Company", 11)["name"] == "Difference"
    assert set(ctx.get("Company", 11).related("employees")) == {first[0], grace}
    assert grace.related("phones") == []
    assert ctx.get("Phone", "+1-555").related("owner") is None


def test_serialization_gives_the_input_shape_back(ctx, fixtures):
    payload = json.loads((fixtures / "people_roundtrip.json").read_text())
    people = ctx.import_json("person", payload)
    assert json.loads(ctx.serialize("person", people)) == payload
    assert json.loads(ctx.serialize("person", people[0], root=False)) == payload["data"]["people"][0]
    company = people[1].related("company")
    assert ctx.serialize("company", company) == '{"id":4,"name":"D"}'
    assert json.loads(ctx.serialize("person", people[1], include_nulls=True, root=False))["phones"] == []


def test_all_and_introspection(ctx, fixtures):
    ctx.import_json("person", (fixtures / "people.json").read_bytes())
    assert [person["id"] for person in ctx.all("Person")] == [1, 2]
    assert ctx.attributes("Company") == ["id", "name"]
    assert ctx.relationships("Person") == ["company", "phones"]
    assert ctx.is_to_many("Person", "phones") and not ctx.is_to_many("Person", "company")


def test_spec_from_text_bytes_and_path(spec, fixtures):
    for source in (json.dumps(spec), json.dumps(spec).encode(), fixtures / "people.spec.json",
                   str(fixtures / "people.spec.json")):
        with mapping.Context(source) as context:
            assert context.count("Person") == 0


def test_version():
    assert mapping.__version__.count(".") == 2
