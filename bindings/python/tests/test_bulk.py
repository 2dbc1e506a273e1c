"""Bulk reads: ctx.values reads one attribute of many objects in one call, typed exactly as
obj[attr] types it, and lists of handles arrive in one copy."""
import datetime
import decimal

import pytest

import mapping

SPEC = {
    "entities": {
        "Person": {"attributes": {"id": "integer", "name": "string", "score": "double", "born": "date",
                                  "amount": "decimal", "active": "boolean", "extra": "json"}},
        "Employee": {"parent": "Person", "attributes": {"badge": "string"}},
        "Robot": {"attributes": {"id": "integer", "name": "integer"}},
    },
    "mappings": {
        "person": {"entity": "Person", "attributes": {k: k for k in ["id", "name", "score", "born", "amount", "active", "extra"]}},
        "employee": {"entity": "Employee", "attributes": {"id": "id", "name": "name", "badge": "badge"}},
        "robot": {"entity": "Robot", "attributes": {"id": "id", "name": "name"}},
    },
}

PEOPLE = [
    {"id": 1, "name": "Ada", "score": 1.5, "born": "1815-12-10T01:02:03.123456Z", "amount": "12.30",
     "active": True, "extra": {"tags": ["a"]}},
    {"id": 2, "name": None, "score": 2, "born": None, "amount": "0.1", "active": False, "extra": None},
    {"id": 3, "name": "Grace", "score": -0.25, "born": "1906-12-09", "amount": 7, "active": None, "extra": [1, 2]},
]


@pytest.mark.parametrize("attribute", ["id", "name", "score", "born", "amount", "active", "extra"])
def test_values_match_single_reads_for_every_type(attribute):
    with mapping.Context(SPEC) as ctx:
        people = ctx.import_json("person", PEOPLE)
        column = ctx.values(people, attribute)
        assert column == [person[attribute] for person in people]
        assert [type(value) for value in column] == [type(person[attribute]) for person in people]


def test_values_exact_types_and_nulls():
    with mapping.Context(SPEC) as ctx:
        people = ctx.import_json("person", PEOPLE)
        assert ctx.values(people, "amount") == [decimal.Decimal("12.30"), decimal.Decimal("0.1"), decimal.Decimal(7)]
        born = ctx.values(people, "born")
        assert born[0] == datetime.datetime(1815, 12, 10, 1, 2, 3, 123456, tzinfo=datetime.timezone.utc)
        assert born[1] is None
        assert ctx.values(people, "score") == [1.5, 2.0, -0.25] and isinstance(ctx.values(people, "score")[1], float)
        assert ctx.values([], "name") == []


def test_values_across_sub_entities_and_errors():
    with mapping.Context(SPEC) as ctx:
        people = ctx.import_json("person", PEOPLE[:1])
        staff = ctx.import_json("employee", [{"id": 9, "name": "Linus", "badge": "B-9"}])
        assert ctx.values(people + staff, "name") == ["Ada", "Linus"]
        with pytest.raises(mapping.UnknownNameError) as caught:
            ctx.values(people + staff, "badge")  # Person has no badge
        assert "object 0" in str(caught.value) and "badge" in str(caught.value)
        robots = ctx.import_json("robot", [{"id": 1, "name": 42}])
        with pytest.raises(mapping.WrongTypeError) as caught:
            ctx.values(people + robots, "name")  # a string in Person, an integer in Robot
        assert "object 1" in str(caught.value) and "integer" in str(caught.value)
        ctx.delete(staff[0])
        with pytest.raises(mapping.StaleObjectError) as caught:
            ctx.values(people + staff, "name")
        assert "object 1" in str(caught.value)
        with mapping.Context(SPEC) as other:
            with pytest.raises(mapping.MisuseError):
                other.values(people, "name")


def test_lists_arrive_in_one_copy():
    with mapping.Context(SPEC) as ctx:
        people = ctx.import_json("person", [{"id": i, "name": f"P{i}"} for i in range(1000)])
        assert [person["id"] for person in people] == list(range(1000))
        assert ctx.all("Person") == people


def test_returned_lists_hand_their_library_list_to_values_until_closed():
    with mapping.Context(SPEC) as ctx:
        people = ctx.import_json("person", PEOPLE)
        assert isinstance(people, mapping.ObjectList) and not isinstance(people, list)
        assert people._library_list(ctx) is not None
        names = ctx.values(people, "name")
        assert names == ["Ada", None, "Grace"] == ctx.values(list(people), "name")
        assert type(people[:2]) is list  # a slice is a plain list of the same Objects
        everyone = ctx.all("Person")
        assert everyone._library_list(ctx) is not None
        changed = list(people)  # an ObjectList is immutable: changes are made on a copy
        last = changed.pop()
        assert ctx.values(changed, "name") == ["Ada", None]
        changed.append(last)
        changed.reverse()
        assert ctx.values(changed, "name") == ["Grace", None, "Ada"]
        changed[0] = everyone[0]
        assert ctx.values(changed, "name") == ["Ada", None, "Ada"]
        people.close()
        assert people._library_list(ctx) is None, "a closed list no longer holds the library's list"
        assert ctx.values(people, "name") == ["Ada", None, "Grace"], "its Objects are still read, one by one"
        with mapping.Context(SPEC) as other:
            with pytest.raises(mapping.MisuseError):
                other.values(everyone, "name")  # another context's list is checked object by object
