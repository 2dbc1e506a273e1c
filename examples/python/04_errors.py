"""04 — Errors: malformed JSON reports line and column, a wrong type reports the JSON path and the
attribute, and a failed import changes nothing.
Introduces: MappingError and its subclasses (each also a built-in: ValueError, TypeError, …), all-or-nothing
imports."""
import mapping
from _common import open_context


def show(error):
    # str(error) is the message, then the JSON path and the attribute when they are set.
    print(f"{type(error).__name__}: {error}")
    if error.line:
        print(f"  at line {error.line}, column {error.column} (byte {error.position})")
    if error.path:
        print(f"  error.path = {error.path!r}, error.attribute = {error.attribute!r}")
    # Each class also derives from the built-in that fits: ParseError is a ValueError,
    # WrongTypeError a TypeError, so `except ValueError` catches bad JSON too.
    builtin = next(base.__name__ for base in type(error).__mro__ if base.__module__ == "builtins")
    print(f"  also a {builtin}")


with open_context() as ctx:
    ctx.import_json("event", [{"id": "1", "type": "PushEvent"}])
    before = ctx.count("Event")
    for bad in ('[{"id": "2",\n  "type": }]', '[{"id": "3", "type": "X"}, {"id": "4", "actor": {"id": "abc"}}]'):
        try:
            ctx.import_json("event", bad)
        except mapping.MappingError as error:
            show(error)
    after = ctx.count("Event")
    print(f"events before: {before}, after two failed imports: {after}")
    assert before == after

try:
    mapping.Context({"entities": {"A": {"attributes": {"x": "text"}}}, "mappings": {}})
except mapping.SpecError as error:
    show(error)
