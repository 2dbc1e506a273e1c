"""The ffi table checks status codes itself: every function returning a mapping_status has an
errcheck that raises the MappingError subclass, with the detail read from the call's context, or
from NULL for the context-less functions (paths, URLs, queries, lists, paginators)."""
import ctypes
import re

import pytest

import mapping
from mapping import _ffi

HEADER_NOT_A_STATUS = {"mapping_version_number", "mapping_parser_is_available", "mapping_object_check",
                       "mapping_value_set_json", "mapping_value_set_error"}


def declared_functions():
    return {name: value for name, value in vars(_ffi).items()
            if isinstance(value, ctypes._CFuncPtr) and value.__name__.startswith("mapping_")}


def test_every_status_function_and_only_those_has_an_errcheck():
    functions = declared_functions()
    assert len(functions) > 60
    for name, function in functions.items():
        is_status = function.restype is ctypes.c_int and function.__name__ not in HEADER_NOT_A_STATUS
        assert (getattr(function, "errcheck", None) is not None) == is_status, f"{name} ({function.__name__})"


def test_no_hand_written_status_checks_remain():
    """The binding's modules call the table and let it raise: no `check(...)`/`_check(...)` helpers,
    no comparison of a call's result with OK."""
    import inspect
    from mapping import context, http, objects
    for module in (context, http, objects):
        source = inspect.getsource(module)
        assert not re.search(r"\b_?check\(", source), module.__name__
        assert "!= _ffi.OK" not in source and "error_from_status" not in source, module.__name__


def test_a_failing_call_raises_with_its_contexts_detail(ctx):
    total = ctypes.c_size_t()
    with pytest.raises(mapping.UnknownNameError) as caught:
        _ffi.count(ctx._ptr, b"Martian", ctypes.byref(total))
    assert caught.value.code == _ffi.ENAME
    assert caught.value.message == _ffi.error_message(ctx._ptr).decode() != ""
    assert "Martian" in caught.value.message
    assert _ffi.count(ctx._ptr, b"Person", ctypes.byref(total)) == _ffi.OK and total.value == 0


def test_a_contextless_call_raises_with_the_null_detail(ctx):
    out = ctypes.c_void_p()
    with pytest.raises(mapping.MisuseError) as caught:
        _ffi.query_decode(b"a=\xff", ctypes.byref(out))
    assert caught.value.message == "query is not valid UTF-8" == _ffi.error_message(None).decode()
    paginator = mapping.Paginator(ctx, "/p?offset=:offset", 2**64 - 1)
    with pytest.raises(mapping.OutOfRangeError) as caught:
        paginator.path(3)
    # The paginator's failure is in the NULL record only: read from the context it would be empty.
    assert caught.value.message.startswith("the offset of page 3 ")
    assert _ffi.error_message(ctx._ptr) == b""


def test_a_contexts_detail_is_not_confused_with_the_null_one(ctx):
    out = ctypes.c_void_p()
    with pytest.raises(mapping.MisuseError):
        _ffi.url_resolve(b"\xff", b"x", ctypes.byref(out))  # leaves a message in the NULL record
    with pytest.raises(mapping.UnknownNameError) as caught:
        ctx.all("Martian")
    assert "Martian" in caught.value.message and "UTF-8" not in caught.value.message


def test_allowed_codes_come_back_as_answers(ctx):
    found = _ffi.Object()
    assert _ffi.get(ctx._ptr, b"Person", b"1", ctypes.byref(found)) == _ffi.ENOTFOUND
    assert ctx.get("Person", 1) is None
    person = ctx.create("Person", id=1, name="Ada")
    value = ctypes.c_int64()
    assert _ffi.get_int64(ctx._ptr, person._handle, b"age", ctypes.byref(value)) == _ffi.ENULL
    assert person["age"] is None
    with pytest.raises(mapping.WrongTypeError) as caught:  # only the allowed code is an answer
        _ffi.get_int64(ctx._ptr, person._handle, b"name", ctypes.byref(value))
    assert caught.value.code == _ffi.ETYPE and "not readable with mapping_object_get_int64" in str(caught.value)
    assert mapping.PathPattern("/people/:id").match("/groups/1") is None
