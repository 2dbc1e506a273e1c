"""The exceptions: str(error) carries the JSON path and the attribute, every class is also the
built-in exception that fits, and the attributes survive pickling."""
import pickle

import pytest

import mapping
from mapping import errors

BUILTINS = {
    mapping.MisuseError: ValueError,
    mapping.SpecError: ValueError,
    mapping.ParseError: ValueError,
    mapping.WrongTypeError: TypeError,
    mapping.UnknownNameError: LookupError,
    mapping.NotFoundError: LookupError,
    mapping.StaleObjectError: ReferenceError,
    mapping.NullValueError: ValueError,
    mapping.DepthError: ValueError,
    mapping.OutOfRangeError: ValueError,
    mapping.UnmappableError: ValueError,
    mapping.PredicateError: ValueError,
    mapping.BusyError: TimeoutError,
    mapping.StoreError: OSError,
    mapping.OutOfMemoryError: MemoryError,
}
PLAIN = [mapping.MappingError, mapping.DeniedError, mapping.ConstraintError, mapping.ResponseError,
         mapping.UnavailableError, mapping.ConflictError]


def test_every_error_class_is_the_builtin_that_fits():
    assert set(BUILTINS) | set(PLAIN) == {errors.MappingError, *errors.MappingError.__subclasses__()}
    for cls, builtin in BUILTINS.items():
        assert issubclass(cls, mapping.MappingError) and issubclass(cls, builtin), cls
        assert cls.__mro__[1] is mapping.MappingError, "MappingError first, so its __str__ and attributes win"
    assert not issubclass(mapping.UnknownNameError, KeyError), "KeyError's str() would quote the message"
    for cls in PLAIN:
        assert [base for base in cls.__mro__ if base.__module__ == "builtins"] == [Exception, BaseException, object]


def test_builtin_handlers_catch_the_library_errors(ctx):
    ctx.import_json("person", {"data": {"people": [{"id": 1, "name": "Ada"}]}})
    ada = ctx.get("Person", 1)
    with pytest.raises(ValueError) as caught:
        ctx.import_json("person", '{"data": ')
    assert type(caught.value) is mapping.ParseError
    with pytest.raises(TypeError) as caught:
        ctx.import_json("person", {"data": {"people": [{"id": "x"}]}})
    assert type(caught.value) is mapping.WrongTypeError
    with pytest.raises(LookupError) as caught:
        ada["nickname"]
    assert type(caught.value) is mapping.UnknownNameError
    with pytest.raises(LookupError) as caught:
        ctx.route_path(name="nope")
    assert type(caught.value) is mapping.NotFoundError
    with pytest.raises(ValueError) as caught:
        ctx.fetch("Person", "name ==")
    assert type(caught.value) is mapping.PredicateError
    ctx.delete(ada)
    with pytest.raises(ReferenceError) as caught:
        ada["name"]
    assert type(caught.value) is mapping.StaleObjectError


def test_str_adds_the_json_path_and_the_attribute(ctx):
    with pytest.raises(mapping.WrongTypeError) as caught:
        ctx.import_json("person", {"data": {"people": [{"id": 7, "age": "x"}]}})
    error = caught.value
    assert error.message == 'cannot map $.data.people[0].age into Person.age (integer): "x" is not an integer'
    assert (error.path, error.attribute) == ("$.data.people[0].age", "Person.age")
    assert str(error) == error.message + " (at $.data.people[0].age, attribute Person.age)"
    assert error.args == (error.message,)


def test_str_adds_only_what_is_set(spec):
    spec["mappings"]["person"]["attributes"]["nickname"] = "nick"
    with pytest.raises(mapping.SpecError) as caught:
        mapping.Context(spec)
    error = caught.value
    assert error.path == "$.mappings.person.attributes.nickname" and error.attribute == ""
    assert str(error) == f"{error.message} (at $.mappings.person.attributes.nickname)"
    assert str(mapping.MappingError("lost", attribute="Person.age")) == "lost (attribute Person.age)"
    assert str(mapping.MisuseError("plain")) == "plain"


def test_parse_errors_keep_their_text(ctx):
    with pytest.raises(mapping.ParseError) as caught:
        ctx.import_json("person", '{"data": {"people": [\n {"id": 5,,}]}}')
    assert caught.value.path == "" and str(caught.value) == caught.value.message
    assert "line 2, column 11" in str(caught.value)


def test_errors_pickle_with_their_attributes(ctx):
    with pytest.raises(mapping.WrongTypeError) as caught:
        ctx.import_json("person", {"data": {"people": [{"id": 7, "age": "x"}]}})
    copy = pickle.loads(pickle.dumps(caught.value))
    assert type(copy) is mapping.WrongTypeError
    assert (copy.code, copy.message, copy.path, copy.attribute) == \
        (mapping._ffi.ETYPE, caught.value.message, "$.data.people[0].age", "Person.age")
    assert str(copy) == str(caught.value)
    busy = pickle.loads(pickle.dumps(mapping.BusyError("waited", path="$")))
    assert isinstance(busy, TimeoutError) and str(busy) == "waited (at $)"
