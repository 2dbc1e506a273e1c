"""One handle base for everything that owns a library pointer (Context, ObjectList, Paginator):
close(), `closed`, `with`, and a weakref.finalize finalizer that frees the pointer once."""
import gc
import weakref

import pytest

import mapping
from mapping._handle import Handle

PEOPLE = {"data": {"people": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]}}


def test_every_owning_class_shares_the_handle_base(ctx):
    people = ctx.import_json("person", PEOPLE)
    paginator = mapping.Paginator(ctx, "/people?page=:currentPage&per_page=:perPage", 10)
    for handle in (ctx, people, paginator):
        assert isinstance(handle, Handle)
        assert type(handle).close is Handle.close
        assert type(handle).__enter__ is Handle.__enter__ and type(handle).__exit__ is Handle.__exit__
        assert isinstance(handle._finalizer, weakref.finalize) and handle._finalizer.alive
        assert handle.closed is False
    assert not isinstance(people[0], Handle), "an Object is a plain value, not an owner"


def test_with_closes_and_closing_twice_is_harmless(spec):
    with mapping.Context(spec) as ctx:
        assert not ctx.closed
        with ctx.import_json("person", PEOPLE) as people:
            assert people._library_list(ctx) is not None
        assert people.closed and people._library_list(ctx) is None
        with mapping.Paginator(ctx, "/p?page=:currentPage", 5) as paginator:
            assert paginator.path(2) == "/p?page=2"
        assert paginator.closed
        paginator.close()
        people.close()
    assert ctx.closed
    ctx.close()
    assert ctx.closed


def test_with_closes_even_when_the_block_raises(spec):
    with pytest.raises(RuntimeError, match="boom"):
        with mapping.Context(spec) as ctx:
            raise RuntimeError("boom")
    assert ctx.closed


def test_a_closed_handle_says_what_was_closed(spec):
    ctx = mapping.Context(spec)
    paginator = mapping.Paginator(ctx, "/p?page=:currentPage", 5)
    paginator.close()
    with pytest.raises(mapping.MisuseError, match="^the paginator is closed$"):
        paginator.path(1)
    with pytest.raises(mapping.MisuseError, match="^the paginator is closed$"):
        paginator.per_page
    ctx.close()
    with pytest.raises(mapping.MisuseError, match="^the context is closed$"):
        ctx.count("Person")
    with pytest.raises(mapping.MisuseError, match="^the context is closed$"):
        mapping.Paginator(ctx, "/p", 5)


def test_a_closed_object_list_stays_readable(ctx):
    people = ctx.import_json("person", PEOPLE)
    people.close()
    assert [person["name"] for person in people] == ["Ada", "Grace"]
    assert ctx.values(people, "name") == ["Ada", "Grace"]
    assert ctx.serialize("person", people) == ctx.serialize("person", list(people))


@pytest.mark.parametrize("make", [
    lambda spec: mapping.Context(spec),
    lambda spec: mapping.Context(spec).import_json("person", PEOPLE),
    lambda spec: mapping.Paginator(mapping.Context(spec), "/p?page=:currentPage", 5),
], ids=["context", "list", "paginator"])
def test_the_finalizer_frees_a_collected_handle_and_does_not_keep_it_alive(spec, make):
    handle = make(spec)
    finalizer = handle._finalizer
    reference = weakref.ref(handle)
    del handle
    gc.collect()
    assert reference() is None, "the finalizer must not hold the handle"
    assert not finalizer.alive


def test_the_finalizer_calls_the_destructor_once_with_the_pointer():
    freed = []

    class Owned(Handle):
        _kind = "thing"

    owned = Owned(1234, freed.append)
    with owned:
        assert owned._ptr == 1234
    owned.close()
    del owned
    gc.collect()
    assert freed == [1234]
