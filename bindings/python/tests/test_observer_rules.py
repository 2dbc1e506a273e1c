"""The rules observers live by, from Python: a registration lasts until it is closed or its context
is, whether or not the Observer is kept; one closed inside another observer's call is never called
again (it used to be, through a freed ctypes callback: a segfault); observers that keep changing
the graph stop at a depth limit with an error; a transaction an observer leaves open is rolled back."""
import gc
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mapping


def company(ctx, id, name):
    ctx.import_json("company", {"id": id, "name": name})


def test_an_observer_whose_handle_is_not_kept_is_still_called(ctx):
    seen = []
    ctx.observe(seen.append)  # as a statement: nothing keeps the Observer
    ctx.watch(lambda change: seen.append(("watch", len(change.results))), "Company")
    gc.collect()
    company(ctx, 1, "A")
    assert len(seen) == 2
    assert [o["name"] for o in seen[0].inserted] == ["A"]
    assert seen[1] == ("watch", 1)


def test_closing_the_context_ends_registrations_that_were_not_kept(spec):
    seen = []
    context = mapping.Context(spec)
    context.observe(seen.append)
    context.close()
    gc.collect()
    assert seen == []


def test_a_context_dropped_with_observers_is_collected(spec):
    import weakref
    context = mapping.Context(spec)
    context.observe(lambda changes: None)
    gone = weakref.ref(context)
    del context
    gc.collect()
    assert gone() is None


def test_an_observer_closed_by_another_during_a_delivery_is_not_called(ctx):
    calls = []
    holder = {}

    def first(changes):
        calls.append("first")
        if "second" in holder:
            holder.pop("second").close()
            gc.collect()  # its ctypes callback may be freed now

    def second(changes):
        calls.append("second")

    ctx.observe(first)
    holder["second"] = ctx.observe(second)
    company(ctx, 1, "A")
    company(ctx, 1, "B")
    assert calls == ["first", "first"]


SCRIPT = textwrap.dedent("""
    import gc, json, sys
    sys.path.insert(0, sys.argv[1])
    import mapping
    spec = json.load(open(sys.argv[2]))
    with mapping.Context(spec) as ctx:
        kept = {}
        def first(changes):
            ob = kept.pop("ob", None)
            if ob is not None:
                ob.close(); del ob; gc.collect()
        ctx.observe(first)
        kept["ob"] = ctx.observe(lambda changes: print("called after close", flush=True))
        for i in range(20):
            ctx.import_json("company", {"id": 1, "name": str(i)})
    print("done", flush=True)
""")


def test_closing_and_dropping_an_observer_inside_another_does_not_crash_the_process(fixtures):
    src = str(Path(mapping.__file__).resolve().parents[1])
    run = subprocess.run([sys.executable, "-c", SCRIPT, src, str(fixtures / "people.spec.json")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["done"]


def test_observers_changing_the_graph_in_turn_stop_at_the_depth_limit(ctx):
    company(ctx, 1, "A")
    target = ctx.get("Company", 1)
    errors = []
    calls = []

    def endless(changes):
        calls.append(1)
        try:
            target["name"] = f"v{len(calls)}"
        except mapping.MisuseError as error:
            errors.append(str(error))

    ctx.observe(endless)
    target["name"] = "start"  # returns
    assert len(calls) == 32 and len(errors) == 1
    assert "32" in errors[0] and "observer" in errors[0]
    assert target["name"] == "v31"


def test_a_transaction_an_observer_leaves_open_is_rolled_back(ctx):
    company(ctx, 1, "A")
    target = ctx.get("Company", 1)
    calls = []

    def opener(changes):
        calls.append(1)
        if len(calls) == 1:
            ctx.begin()
            target["name"] = "inside the observer"

    ctx.observe(opener)
    target["name"] = "B"
    assert target["name"] == "B"
    with pytest.raises(mapping.MisuseError):
        ctx.commit()  # nothing is open: the caller's calls did not join the observer's transaction
    company(ctx, 2, "C")
    assert ctx.count("Company") == 2
