"""Values and positions through the binding: dates far from 1970 keep their microseconds through
obj[attr] and Context.values (a float of seconds holds about 15 digits), the last representable
datetime reads back without OverflowError, and a NUL byte in a payload is a ParseError at its own
0-based offset on both parsers; appending a member already in an ordered to-many leaves it in place."""
import datetime
import math

import pytest

import mapping

SPEC = {"entities": {"T": {"attributes": {"label": "string", "at": "date", "d": "double", "n": "integer"},
                           "identification": "label"}},
        "mappings": {"t": {"entity": "T", "attributes": {"label": "label", "at": "at", "d": "d", "n": "n"}}}}
UTC = datetime.timezone.utc
DATES = {
    "2300": ("2300-01-01T00:00:00.000001Z", datetime.datetime(2300, 1, 1, 0, 0, 0, 1, tzinfo=UTC)),
    "1600": ("1600-06-30T12:00:00.999999Z", datetime.datetime(1600, 6, 30, 12, 0, 0, 999999, tzinfo=UTC)),
    "first": ("0001-01-01T00:00:00.000001Z", datetime.datetime(1, 1, 1, 0, 0, 0, 1, tzinfo=UTC)),
    "last": ("9999-12-31T23:59:59.999999Z", datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
    "before1970": ("1969-12-31T23:59:59.5Z", datetime.datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC)),
}


def test_dates_read_back_exactly_whatever_the_year():
    with mapping.Context(SPEC) as ctx:
        ctx.import_json("t", [{"label": key, "at": text} for key, (text, _) in DATES.items()])
        for key, (_, expected) in DATES.items():
            assert ctx.get("T", key)["at"] == expected
        objects = [ctx.get("T", key) for key in DATES]
        assert ctx.values(objects, "at") == [expected for _, expected in DATES.values()]


def test_a_date_beyond_what_datetime_holds_is_an_out_of_range_error():
    with mapping.Context(SPEC) as ctx:
        ctx.import_json("t", [{"label": "far", "at": "+12345-01-01T00:00:00Z"}])
        with pytest.raises(mapping.OutOfRangeError, match="years 1-9999"):
            ctx.get("T", "far")["at"]
        assert '"+12345-01-01T00:00:00.000Z"' in ctx.serialize("t", [ctx.get("T", "far")])


def test_negative_zero_survives_an_sqlite_store(tmp_path):
    path = str(tmp_path / "store.db")
    with mapping.Context(SPEC, store=path) as ctx:
        ctx.import_json("t", [{"label": "z", "d": -0.0}, {"label": "one", "d": 1.0}])
    with mapping.Context(SPEC, store=path) as ctx:
        assert math.copysign(1, ctx.get("T", "z")["d"]) == -1
        assert ctx.get("T", "one")["d"] == 1.0


@pytest.mark.parametrize("parser", mapping.available_parsers())
def test_a_nul_byte_is_a_parse_error_at_its_offset(parser):
    with mapping.Context(SPEC, parser=parser) as ctx:
        with pytest.raises(mapping.ParseError) as caught:
            ctx.import_json("t", b'[{"label": "a", "n": 0\x00}]')
        assert (caught.value.line, caught.value.column, caught.value.position) == (1, 23, 22)
        assert "NUL byte" in str(caught.value)
        with pytest.raises(mapping.ParseError) as caught:
            ctx.import_json("t", b"x")
        assert caught.value.position == 0
        assert ctx.count("T") == 0


def test_appending_a_member_already_in_an_ordered_to_many_leaves_it_in_place(spec):
    with mapping.Context(spec) as ctx:
        ctx.import_json("person", {"data": {"people": [{"id": 1, "phones": [{"number": "a"}, {"number": "b"}, {"number": "c"}]}]}})
        person, first = ctx.get("Person", 1), ctx.get("Phone", "a")
        seen = []
        with ctx.observe(seen.append):
            person.add_related("phones", first)  # already there: stays first, nothing changes
            assert [p["number"] for p in person.related("phones")] == ["a", "b", "c"]
            assert seen == []
            person.add_related("phones", first, 2)  # an index moves it
            assert [p["number"] for p in person.related("phones")] == ["b", "c", "a"]
            assert len(seen) == 1
