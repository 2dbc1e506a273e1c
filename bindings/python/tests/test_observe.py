"""Context.observe: change sets after every commit that changed something, none otherwise; the
callback may read the context; closing the observer (or its `with` block) stops it."""
import pytest

import mapping

from conftest import FIXTURES


def payload():
    return (FIXTURES / "people.json").read_bytes()


def test_an_import_reports_its_inserts_and_a_reimport_nothing(ctx):
    seen = []
    with ctx.observe(seen.append):
        ctx.import_json("person", payload())
        ctx.import_json("person", payload())
    assert len(seen) == 1
    assert sorted(obj.entity for obj in seen[0].inserted) == ["Company", "Company", "Person", "Person",
                                                              "Phone", "Phone", "Phone"]
    assert seen[0].updated == () and seen[0].deleted == ()


def test_updates_name_what_changed_and_deletes_give_entity_and_identity(ctx):
    ctx.import_json("person", payload())
    grace = ctx.get("Person", 2)
    names = []
    seen = []

    def record(changes):
        seen.append(changes)
        for update in changes.updated:
            if update.object.entity == "Person" and update.object.is_live():
                names.append(update.object["name"])  # the callback may read the context

    with ctx.observe(record):
        grace["name"] = "Grace Hopper"
        ctx.delete(ctx.get("Phone", "+1-555"))
    assert [(u.object, u.changed) for u in seen[0].updated] == [(grace, ("name",))]
    assert names[0] == "Grace Hopper"
    assert seen[1].deleted == (mapping.observe.Deleted("Phone", "+1-555"),)
    assert [(u.object, u.changed) for u in seen[1].updated] == [(grace, ("phones",))]


def test_a_transaction_reports_once_and_a_rollback_never(ctx):
    ctx.import_json("person", payload())
    ada = ctx.get("Person", 1)
    seen = []
    observer = ctx.observe(seen.append)
    with ctx.transaction():
        ada["age"] = 37
        ada["name"] = "Ada King"
    assert len(seen) == 1
    assert [(u.object, u.changed) for u in seen[0].updated] == [(ada, ("name", "age"))]  # declaration order
    with pytest.raises(RuntimeError):
        with ctx.transaction():
            ada["age"] = 38
            raise RuntimeError("undo")
    with pytest.raises(mapping.WrongTypeError):
        ctx.import_json("person", b'{"data": {"people": [{"id": "x"}]}}')
    assert len(seen) == 1
    observer.close()
    observer.close()  # harmless
    ada["age"] = 39
    assert len(seen) == 1


def test_an_observer_outlives_nothing_when_the_context_closes():
    context = mapping.Context(FIXTURES / "people.spec.json")
    observer = context.observe(lambda changes: None)
    context.close()
    observer.close()  # the context took its observers with it: no error
    assert observer.closed


def test_a_watched_fetch_reports_exact_positions(ctx):
    seen = []
    with ctx.watch(seen.append, "Person", sort="name"):
        ctx.import_json("person", payload())
        ada, grace = ctx.get("Person", 1), ctx.get("Person", 2)
        assert list(seen[0].results) == [ada, grace] and seen[0].inserted == (0, 1)
        grace["name"] = "Aaron"
        assert seen[1].moved == ((1, 0),) and seen[1].updated == (0,) and list(seen[1].results) == [grace, ada]
        ctx.get("Company", 10)["name"] = "Other"  # leaves the results alone
        assert len(seen) == 2
        ctx.delete(ada)
        assert seen[2].removed == (1,) and list(seen[2].results) == [grace]
    grace["name"] = "Zed"
    assert len(seen) == 3
    with pytest.raises(mapping.PredicateError):
        ctx.watch(seen.append, "Person", "age >")


def test_callbacks_run_in_registration_order_even_when_they_call_the_context(ctx):
    order = []

    def first(changes):
        order.append("observer")
        repr(changes.inserted[0])  # a call on the context from inside the callback
        order.append("observer done")

    with ctx.observe(first), ctx.watch(lambda change: order.append("watch"), "Person"):
        ctx.import_json("person", payload())
    assert order == ["observer", "observer done", "watch"]
