"""Regression tests for defects that killed the interpreter or answered wrongly: each must now raise
a clear error (or answer correctly) instead."""
import pytest

import mapping


def people(ctx, count):
    ctx.import_json("person", {"data": {"people": [{"id": n, "name": f"p{n}"} for n in range(1, count + 1)]}})


def test_fetch_limit_and_offset_bounds(ctx):
    people(ctx, 3)
    with pytest.raises(ValueError):
        ctx.fetch("Person", limit=-1, offset=1)
    with pytest.raises(ValueError):
        ctx.fetch("Person", offset=-1)
    assert [p["id"] for p in ctx.fetch("Person", sort="id", limit=2**64 - 1, offset=1)] == [2, 3]
    assert ctx.fetch("Person", offset=2**64 - 1) == []


def test_paginator_numbers_from_a_server_never_trap(ctx):
    paginator = mapping.Paginator(ctx, "/p?page=:currentPage&offset=:offset", 100)
    with pytest.raises(mapping.OutOfRangeError):
        paginator.path(2**62)
    paginator.update(1, {"per_page": 1e300, "current_page": 1})
    assert paginator.per_page == 100
    paginator.update(1, {"per_page": 10, "total_entries": 2**63 - 1})
    assert paginator.page_count == (2**63 - 1) // 10 + 1
    paginator.update(1, {"per_page": 10, "current_page": 2**63 - 1})
    with pytest.raises(mapping.OutOfRangeError):
        paginator.offset
    huge = mapping.Paginator(ctx, "/p?offset=:offset", 2**64 - 1)
    with pytest.raises(mapping.OutOfRangeError):
        huge.path(3)


def test_invalid_utf8_in_arguments_is_refused(ctx):
    people(ctx, 1)
    with pytest.raises(mapping.MisuseError, match="UTF-8"):
        ctx.fetch("Person", b"name == 'a\xff'")
    with pytest.raises(mapping.MisuseError, match="UTF-8"):
        ctx.fetch("Person", sort=b"n\xc3")


def test_max_input_size_refuses_longer_payloads(spec):
    # Each [ and { counts 16 bytes besides its own: the one-person payload below costs 33 + 4 * 16.
    with mapping.Context(spec, max_input_size=100) as ctx:
        with pytest.raises(mapping.OutOfRangeError, match="maximum of 100"):
            people(ctx, 5)
        assert ctx.count("Person") == 0
        ctx.import_json("person", b'{"data": {"people": [{"id": 1}]}}')
        ctx.set_max_input_size(None)
        people(ctx, 5)
        assert ctx.count("Person") == 5
