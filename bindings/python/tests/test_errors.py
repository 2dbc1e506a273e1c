"""Errors through the binding: typed exceptions with code, message, path, attribute, line and
column; failed imports leave the graph as it was; misuse raises instead of crashing."""
import gc

import pytest

import mapping


def snapshot(ctx):
    return ctx.serialize("person", ctx.all("Person"), include_nulls=True), \
        ctx.serialize("company", ctx.all("Company"), include_nulls=True)


def test_malformed_json_reports_line_and_column(ctx, fixtures):
    ctx.import_json("person", (fixtures / "people.json").read_bytes())
    before = snapshot(ctx)
    with pytest.raises(mapping.ParseError) as caught:
        ctx.import_json("person", '{"data": {"people": [\n {"id": 5,,}]}}')
    error = caught.value
    assert (error.code, error.line, error.column, error.position) == (-4, 2, 11, 32)  # position: 0-based offset
    assert "line 2, column 11" in str(error)
    assert snapshot(ctx) == before


def test_wrong_type_names_path_and_attribute_and_changes_nothing(ctx, fixtures):
    ctx.import_json("person", (fixtures / "people.json").read_bytes())
    before = snapshot(ctx)
    with pytest.raises(mapping.WrongTypeError) as caught:
        ctx.import_json("person", {"data": {"people": [
            {"id": 1, "name": "changed", "company": {"id": 99, "name": "new"}, "phones": []},
            {"id": 50, "name": "new person"},
            {"id": 2, "age": "abc"}]}})
    error = caught.value
    assert isinstance(error, mapping.MappingError)
    assert error.path == "$.data.people[2].age"
    assert error.attribute == "Person.age"
    assert '"abc" is not an integer' in error.message
    assert snapshot(ctx) == before
    assert ctx.count("Person") == 2 and ctx.get("Company", 99) is None and ctx.get("Person", 50) is None


def test_spec_errors(spec):
    spec["mappings"]["person"]["attributes"]["nickname"] = "nick"
    with pytest.raises(mapping.SpecError) as caught:
        mapping.Context(spec)
    assert caught.value.path == "$.mappings.person.attributes.nickname"
    with pytest.raises(mapping.SpecError) as caught:
        mapping.Context('{"entities": {')
    assert caught.value.line == 1


def test_misuse_raises(ctx, spec):
    ada = ctx.import_json("person", {"data": {"people": [{"id": 1, "name": "Ada"}]}})[0]
    with pytest.raises(mapping.UnknownNameError):
        ctx.import_json("nobody", {})
    with pytest.raises(mapping.UnknownNameError):
        ada["nickname"]
    with pytest.raises(mapping.UnknownNameError):
        ctx.count("Martian")
    with pytest.raises(mapping.UnmappableError):
        ctx.import_json("person", {"people": []})
    assert ada["age"] is None
    with mapping.Context(spec) as other:
        stranger = other.import_json("person", {"data": {"people": [{"id": 1}]}})[0]
        with pytest.raises(mapping.StaleObjectError):
            ctx.serialize("person", mapping.Object(ctx, stranger._handle))
        with pytest.raises(mapping.MisuseError):
            ctx.serialize("person", stranger)
    with pytest.raises(mapping.MisuseError):
        stranger["name"]  # its context is closed
    assert "unreadable" in repr(stranger)


def test_closed_context_and_finalizer(spec):
    context = mapping.Context(spec)
    person = context.import_json("person", {"data": {"people": [{"id": 1}]}})[0]
    context.close()
    context.close()
    assert context.closed
    with pytest.raises(mapping.MisuseError):
        context.count("Person")
    with pytest.raises(mapping.MisuseError):
        person["id"]
    unreferenced = mapping.Context(spec)
    finalizer = unreferenced._finalizer
    del unreferenced
    gc.collect()
    assert not finalizer.alive
