"""Every C prototype of mapping.h, declared once: argtypes and restype for each function.

Handles are typed opaque pointers, so passing a list where a context is expected is a ctypes
ArgumentError rather than a crash. Strings the library returns as new are declared c_void_p so that
their bytes can be copied before mapping_free releases them; borrowed strings are c_char_p.

Functions that return a status code are declared with `status(...)`: their ctypes `errcheck` raises
the MappingError subclass for any code but MAPPING_OK (and the codes listed in `allow`, which the
caller turns into an answer: ENOTFOUND into None, ENULL into None). The detail comes from
mapping_error_last of the call's context when its first argument is one, of NULL otherwise (the
path, URL, query, list and paginator functions). A call through this table therefore never returns
a failure code; the few functions whose int is not a status to raise on (mapping_object_check, a
predicate; mapping_parser_is_available; mapping_value_set_*, whose code a transformer hands back to
the library) are declared with `function(...)`.

The status codes are the library's: STATUS_CODES is what mapping_error_name says of 0, -1, -2, …,
asked at import, and OK, EPARSE, … are read from it, so no number is copied here. This module sits
below `errors` and does not import it: `errors` hands the errcheck its exception factory with
`set_error_factory` when it is imported (which `import mapping` does before any call).
"""
from __future__ import annotations

import ctypes
import re
from ctypes import POINTER, c_bool, c_char_p, c_double, c_int, c_int64, c_longlong, c_size_t, c_uint, c_uint64, c_void_p
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterable, Optional, Sequence, Tuple

from ._lib import lib

if TYPE_CHECKING:
    from ctypes import _NamedFuncPointer  # what a CDLL attribute is, for type checkers only

ErrorFactory = Callable[[int, Any], BaseException]
"""Builds the exception for a failed call from its code and its context pointer (None for NULL)."""
ErrorCheck = Callable[[int, Any, Tuple[Any, ...]], int]
"""A ctypes errcheck of a status function: the code when it is an answer, else raises."""


class _Context(ctypes.Structure):
    pass


class _List(ctypes.Structure):
    pass


class _Value(ctypes.Structure):
    pass


class _Paginator(ctypes.Structure):
    pass


ContextP = POINTER(_Context)
ListP = POINTER(_List)
ValueP = POINTER(_Value)
PaginatorP = POINTER(_Paginator)
Object = c_uint64


class ErrorRecord(ctypes.Structure):
    _fields_ = [
        ("code", c_int),
        ("message", c_char_p),
        ("path", c_char_p),
        ("attribute", c_char_p),
        ("line", c_int),
        ("column", c_int),
        ("position", c_longlong),
    ]


def function(name: str, argtypes: Sequence[Any], restype: Any) -> _NamedFuncPointer:
    """A C function as is: its argtypes and restype, no check of what it returns."""
    declared: _NamedFuncPointer = getattr(lib, name)
    declared.argtypes = list(argtypes)
    declared.restype = restype
    return declared


# -- status codes, from the library -------------------------------------------------------------

error_name = function("mapping_error_name", [c_int], c_char_p)

STATUS_LIMIT = 256
"""How many codes (0, -1, … -255) the table asks the library for at most; the header has 22."""
_STATUS_NAME = re.compile(rb"MAPPING_[A-Z][A-Z0-9_]*")


def names_a_status(name: Optional[bytes]) -> bool:
    """Whether mapping_error_name's answer is a status name: it answers "MAPPING_E?" for a code it
    does not know (mapping.h); NULL, or any text that is not a C identifier, is no name either."""
    return name is not None and _STATUS_NAME.fullmatch(name) is not None


def _status_codes() -> Dict[str, int]:
    """Every status the library names, name to code: 0, -1, -2, … until it names none. The header
    keeps them contiguous ("new codes are added at the end"), so the first gap is the end."""
    codes: Dict[str, int] = {}
    for code in range(0, -STATUS_LIMIT, -1):
        name = error_name(code)
        if not names_a_status(name):
            break
        text = name.decode("ascii")
        if text in codes:
            raise ImportError(f"libmapping names both {codes[text]} and {code} {text}")
        codes[text] = code
    else:
        raise ImportError(f"libmapping names every status code down to {-STATUS_LIMIT + 1}: "
                          "mapping_error_name does not mark the unknown ones")
    if codes.get("MAPPING_OK") != 0:
        raise ImportError(f"libmapping does not name 0 MAPPING_OK (it says {error_name(0)!r})")
    return codes


STATUS_CODES: Dict[str, int] = _status_codes()
"""{"MAPPING_OK": 0, "MAPPING_ERROR": -1, …}: every status code of the loaded library by its name."""


def status_code(name: str) -> int:
    """The library's code for a status name ("MAPPING_EPARSE"); ImportError when the library has no
    such status (it is older than the binding, which needs it)."""
    try:
        return STATUS_CODES[name]
    except KeyError:
        raise ImportError(f"{lib._name} has no status {name}: this binding needs a libmapping that "
                          f"has it (it names {', '.join(STATUS_CODES)})") from None


# The codes under their header names without "MAPPING_", the numbers the library's (a status the
# binding does not name here is still in STATUS_CODES, and raises MappingError with its code).
OK = status_code("MAPPING_OK")
ERROR = status_code("MAPPING_ERROR")
EMISUSE = status_code("MAPPING_EMISUSE")
ESPEC = status_code("MAPPING_ESPEC")
EPARSE = status_code("MAPPING_EPARSE")
ETYPE = status_code("MAPPING_ETYPE")
ENAME = status_code("MAPPING_ENAME")
ENOTFOUND = status_code("MAPPING_ENOTFOUND")
ESTALE = status_code("MAPPING_ESTALE")
ENULL = status_code("MAPPING_ENULL")
EDEPTH = status_code("MAPPING_EDEPTH")
ERANGE = status_code("MAPPING_ERANGE")
EMAPPING = status_code("MAPPING_EMAPPING")
EDENIED = status_code("MAPPING_EDENIED")
EPREDICATE = status_code("MAPPING_EPREDICATE")
ECONSTRAINT = status_code("MAPPING_ECONSTRAINT")
ERESPONSE = status_code("MAPPING_ERESPONSE")
EUNAVAILABLE = status_code("MAPPING_EUNAVAILABLE")
EBUSY = status_code("MAPPING_EBUSY")
ESTORE = status_code("MAPPING_ESTORE")
ECONFLICT = status_code("MAPPING_ECONFLICT")
ENOMEM = status_code("MAPPING_ENOMEM")


# -- status functions -----------------------------------------------------------------------------

def _error_without_errors(code: int, _context: Any) -> BaseException:
    """The factory until `errors` sets its own: only a partly imported package gets here."""
    return RuntimeError(f"a libmapping call failed with {error_name(code)!r} ({code}), "
                        "and mapping.errors is not imported to say more")


_error_factory: ErrorFactory = _error_without_errors


def set_error_factory(factory: ErrorFactory) -> None:
    """Sets what a failed status call raises: `errors` passes error_from_status when it is
    imported. A hook rather than an import, because `errors` is built on this module."""
    global _error_factory
    _error_factory = factory


def _errcheck(takes_context: bool, allow: FrozenSet[int]) -> ErrorCheck:
    """The errcheck of a status-returning function: the code itself when it is OK or allowed, else the
    error raised, with the detail of the call's context (its first argument) or of NULL."""
    if takes_context:
        def errcheck(code: int, _function: Any, arguments: Tuple[Any, ...]) -> int:
            if code == OK or code in allow:
                return code
            raise _error_factory(code, arguments[0])
    else:
        def errcheck(code: int, _function: Any, arguments: Tuple[Any, ...]) -> int:
            if code == OK or code in allow:
                return code
            raise _error_factory(code, None)  # no context among the arguments: NULL's detail
    return errcheck


def status(name: str, argtypes: Sequence[Any], allow: Iterable[int] = ()) -> _NamedFuncPointer:
    """A C function returning a mapping_status, checked by its errcheck (see the module's docstring)."""
    declared = function(name, argtypes, c_int)
    declared.errcheck = _errcheck(bool(argtypes) and argtypes[0] is ContextP, frozenset(allow))  # type: ignore[assignment]
    return declared


NUL_TERMINATED: int = ctypes.c_size_t(-1).value

# Types and flags, as in mapping.h (bindings/python/tests/test_abi_tables.py compares every one of
# them, the status codes above and the structs with the header).
NO_OBJECT = 0
WAIT_FOREVER = -1
TYPE_STRING, TYPE_INTEGER, TYPE_DOUBLE, TYPE_DECIMAL, TYPE_BOOLEAN, TYPE_DATE, TYPE_JSON = range(1, 8)
SERIALIZE_NULLS, SERIALIZE_PRETTY, SERIALIZE_NO_ROOT, SERIALIZE_FORM = 1, 2, 4, 8

version = function("mapping_version", [], c_char_p)
version_number = function("mapping_version_number", [], c_int)
error_message = function("mapping_error_message", [ContextP], c_char_p)
error_last = function("mapping_error_last", [ContextP], POINTER(ErrorRecord))

context_new = status("mapping_context_new", [c_char_p, c_size_t, POINTER(ContextP)])
OPEN_CREATE, OPEN_READONLY, OPEN_DURABLE, OPEN_REBUILD, OPEN_NO_FOLLOW = 1, 2, 4, 8, 16
context_open = status("mapping_context_open", [c_char_p, c_size_t, c_char_p, c_uint, POINTER(ContextP)])
context_refresh = status("mapping_context_refresh", [ContextP])
context_free = function("mapping_context_free", [ContextP], None)
import_ = status("mapping_context_import", [ContextP, c_char_p, c_char_p, c_size_t, POINTER(ListP)])

EVENT = ctypes.CFUNCTYPE(None, c_int, c_char_p, c_uint64, c_size_t, c_void_p)
PROGRESS = ctypes.CFUNCTYPE(None, c_size_t, c_size_t, c_void_p)
WARNING = ctypes.CFUNCTYPE(None, c_int, c_char_p, c_char_p, c_char_p, c_size_t, c_char_p, c_void_p)
CHECK_WARN, CHECK_STRICT, CHECK_OPTIONAL = 1, 2, 4
WARNING_UNMATCHED_KEY_PATH, WARNING_MISSING_IDENTIFICATION = 1, 2
WARNING_NAMES: Dict[int, str] = {WARNING_UNMATCHED_KEY_PATH: "unmatched_key_path", WARNING_MISSING_IDENTIFICATION: "missing_identification"}


class ImportOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint),
        ("metadata", c_char_p),
        ("metadata_len", c_size_t),
        ("on_event", EVENT),
        ("event_payload", c_void_p),
        ("on_progress", PROGRESS),
        ("progress_payload", c_void_p),
        ("progress_interval", c_size_t),
        ("orphan_entity", c_char_p),
        ("orphan_predicate", c_char_p),
        ("parser", c_int),
        ("checks", ctypes.c_uint),
        ("on_warning", WARNING),
        ("warning_payload", c_void_p),
    ]


IMPORT_OPTIONS_VERSION = 3
PARSER_DEFAULT, PARSER_JANSSON, PARSER_SIMDJSON = 0, 1, 2
PARSERS: Dict[str, int] = {"jansson": PARSER_JANSSON, "simdjson": PARSER_SIMDJSON}
parser_available = function("mapping_parser_is_available", [c_int], c_int)
context_set_parser = status("mapping_context_set_parser", [ContextP, c_int])
context_set_busy_timeout = status("mapping_context_set_busy_timeout", [ContextP, c_int])
context_set_max_input = status("mapping_context_set_max_input", [ContextP, c_size_t])
context_set_cache_limit = status("mapping_context_set_cache_limit", [ContextP, c_size_t])
context_cache_info = status("mapping_context_cache_info", [ContextP, POINTER(c_size_t), POINTER(c_size_t)])
EVENT_WILL_MAP_COLLECTION, EVENT_WILL_MAP_OBJECT, EVENT_DID_MAP_OBJECT, EVENT_DID_MAP_COLLECTION = 1, 2, 3, 4
EVENT_NAMES: Dict[int, str] = {EVENT_WILL_MAP_COLLECTION: "will_map_collection", EVENT_WILL_MAP_OBJECT: "will_map_object",
               EVENT_DID_MAP_OBJECT: "did_map_object", EVENT_DID_MAP_COLLECTION: "did_map_collection"}
import_with = status("mapping_context_import_with", [ContextP, POINTER(c_char_p), c_size_t, c_char_p, c_size_t,
                                                     POINTER(ImportOptions), POINTER(ListP)])
CHUNKS_ARRAY, CHUNKS_LINES = 0, 1
import_chunked = status("mapping_context_import_chunked", [ContextP, c_char_p, c_char_p, c_size_t, c_int, c_size_t,
                                                           POINTER(ImportOptions), POINTER(c_size_t)])

list_new = status("mapping_list_new", [POINTER(Object), c_size_t, POINTER(ListP)])
list_count = function("mapping_list_count", [ListP], c_size_t)
list_get = status("mapping_list_at", [ListP, c_size_t, POINTER(Object)])
list_copy = status("mapping_list_copy", [ListP, POINTER(Object), c_size_t, POINTER(c_size_t)])
list_free = function("mapping_list_free", [ListP], None)

object_check = function("mapping_object_check", [ContextP, Object], c_int)  # a predicate: OK or ESTALE
entity_name = status("mapping_object_entity", [ContextP, Object, POINTER(c_char_p)])
attribute_type = status("mapping_entity_attribute_type", [ContextP, c_char_p, c_char_p, POINTER(c_int)])
entity_attribute_count = status("mapping_entity_attribute_count", [ContextP, c_char_p, POINTER(c_size_t)])
entity_attribute_name = status("mapping_entity_attribute_name", [ContextP, c_char_p, c_size_t, POINTER(c_char_p)])
entity_identification_count = status("mapping_entity_identification_count", [ContextP, c_char_p, POINTER(c_size_t)])
entity_identification_name = status("mapping_entity_identification_name", [ContextP, c_char_p, c_size_t, POINTER(c_char_p)])
entity_relationship_count = status("mapping_entity_relationship_count", [ContextP, c_char_p, POINTER(c_size_t)])
entity_relationship_name = status("mapping_entity_relationship_name",
                                  [ContextP, c_char_p, c_size_t, POINTER(c_char_p)])
relationship_is_to_many = status("mapping_entity_relationship_is_to_many", [ContextP, c_char_p, c_char_p, POINTER(c_bool)])
is_null = status("mapping_object_is_null", [ContextP, Object, c_char_p, POINTER(c_bool)])
get_string = status("mapping_object_get_string", [ContextP, Object, c_char_p, POINTER(c_void_p), POINTER(c_size_t)], allow=[ENULL])
get_int64 = status("mapping_object_get_int64", [ContextP, Object, c_char_p, POINTER(c_int64)], allow=[ENULL])
get_double = status("mapping_object_get_double", [ContextP, Object, c_char_p, POINTER(c_double)], allow=[ENULL])
get_bool = status("mapping_object_get_bool", [ContextP, Object, c_char_p, POINTER(c_bool)], allow=[ENULL])
get_date = status("mapping_object_get_date", [ContextP, Object, c_char_p, POINTER(c_double)], allow=[ENULL])
get_date_us = status("mapping_object_get_date_us", [ContextP, Object, c_char_p, POINTER(c_int64)], allow=[ENULL])
get_decimal = status("mapping_object_get_decimal", [ContextP, Object, c_char_p, POINTER(c_char_p)], allow=[ENULL])
get_json = status("mapping_object_get_json", [ContextP, Object, c_char_p, POINTER(c_void_p)])
get_values = status("mapping_list_values", [ContextP, ListP, c_char_p, POINTER(c_void_p)])
get_related = status("mapping_object_related", [ContextP, Object, c_char_p, POINTER(Object)])
get_related_list = status("mapping_object_related_list", [ContextP, Object, c_char_p, POINTER(ListP)])

get = status("mapping_entity_find", [ContextP, c_char_p, c_char_p, POINTER(Object)], allow=[ENOTFOUND])
all_ = status("mapping_entity_all", [ContextP, c_char_p, POINTER(ListP)])
count = status("mapping_entity_count", [ContextP, c_char_p, POINTER(c_size_t)])
fetch = status("mapping_entity_fetch", [ContextP, c_char_p, c_char_p, c_char_p, c_char_p, c_size_t, c_size_t, c_uint, POINTER(ListP)])
FETCH_EXACT_ENTITY = 1

begin = status("mapping_context_begin", [ContextP])
commit = status("mapping_context_commit", [ContextP])
rollback = status("mapping_context_rollback", [ContextP])
create = status("mapping_object_create", [ContextP, c_char_p, c_char_p, POINTER(Object)])
set_ = status("mapping_object_set", [ContextP, Object, c_char_p, c_char_p])
set_related = status("mapping_object_set_related", [ContextP, Object, c_char_p, Object])
set_related_list = status("mapping_object_set_related_list", [ContextP, Object, c_char_p, ListP])
add_related = status("mapping_object_add_related", [ContextP, Object, c_char_p, Object, c_size_t])
remove_related = status("mapping_object_remove_related", [ContextP, Object, c_char_p, Object])
move_related = status("mapping_object_move_related", [ContextP, Object, c_char_p, c_size_t, c_size_t])
delete = status("mapping_object_delete", [ContextP, Object])
APPEND = ctypes.c_size_t(-1).value
count_where = status("mapping_entity_count_where", [ContextP, c_char_p, c_char_p, c_char_p, POINTER(c_size_t)])

TRANSFORMER = ctypes.CFUNCTYPE(c_int, ctypes.POINTER(ctypes.c_char), c_size_t, ValueP, c_void_p)
register_transformer = status("mapping_context_register_transformer", [ContextP, c_char_p, TRANSFORMER, TRANSFORMER, c_void_p])
# A transformer returns these codes to the library, which reports the failure itself.
value_set_json = function("mapping_value_set_json", [ValueP, c_char_p, c_size_t], c_int)
value_set_error = function("mapping_value_set_error", [ValueP, c_char_p], c_int)

path_match = status("mapping_path_match", [c_char_p, c_char_p, c_uint, POINTER(c_void_p)], allow=[ENOTFOUND])
path_interpolate = status("mapping_path_interpolate", [c_char_p, c_char_p, c_uint, POINTER(c_void_p)])
path_from_object = status("mapping_path_interpolate_object", [ContextP, c_char_p, Object, c_uint, POINTER(c_void_p)])
query_decode = status("mapping_query_decode", [c_char_p, POINTER(c_void_p)])
PATH_ESCAPE, PATH_QUERY = 1, 2
route_path = status("mapping_route_path", [ContextP, c_char_p, Object, c_char_p, c_char_p, c_uint, POINTER(c_void_p)])


class Response(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("method", c_char_p), ("url", c_char_p), ("status", c_int),
                ("headers", c_char_p), ("body", c_char_p), ("body_len", c_size_t), ("base_url", c_char_p),
                ("orphan_entity", c_char_p), ("orphan_predicate", c_char_p), ("target", Object)]


RESPONSE_VERSION = 2
map_response = status("mapping_response_map", [ContextP, POINTER(Response), POINTER(ListP)])
parameters = status("mapping_list_parameters", [ContextP, ListP, c_char_p, c_uint, POINTER(c_void_p)])
paginator_new = status("mapping_paginator_new", [ContextP, c_char_p, c_size_t, POINTER(PaginatorP)])
paginator_free = function("mapping_paginator_free", [PaginatorP], None)
paginator_path = status("mapping_paginator_path", [PaginatorP, c_size_t, POINTER(c_void_p)])
paginator_update = status("mapping_paginator_update", [PaginatorP, c_size_t, c_char_p, c_size_t])
paginator_get = status("mapping_paginator_field", [PaginatorP, c_char_p, POINTER(c_longlong)])
url_resolve = status("mapping_url_resolve", [c_char_p, c_char_p, POINTER(c_void_p)])

serialize = status("mapping_object_serialize", [ContextP, c_char_p, Object, c_uint, POINTER(c_void_p)])
serialize_list = status("mapping_list_serialize", [ContextP, c_char_p, ListP, c_uint, POINTER(c_void_p)])
free = function("mapping_free", [c_void_p], None)


def take_string(pointer: Optional[int]) -> str:
    """Copies a string the library returned as new, then releases it. Only a call that succeeded
    gets here, and those always return one (mapping.h): NULL is the library's bug, said as such."""
    if not pointer:
        raise RuntimeError("libmapping returned no string from a call that succeeded")
    try:
        return ctypes.string_at(pointer).decode("utf-8")
    finally:
        free(pointer)


# Observing commits.
CHANGE_INSERTED, CHANGE_UPDATED, CHANGE_DELETED = 1, 2, 3
OBSERVER = ctypes.CFUNCTYPE(None, ContextP, c_void_p, c_void_p)
CONTEXT_WARNING = ctypes.CFUNCTYPE(None, ContextP, c_char_p, c_void_p)
context_set_warning_handler = status("mapping_context_set_warning_handler", [ContextP, CONTEXT_WARNING, c_void_p])
context_observe = status("mapping_context_observe", [ContextP, OBSERVER, c_void_p, POINTER(ctypes.c_uint64)])
context_unobserve = status("mapping_context_unobserve", [ContextP, ctypes.c_uint64], allow=(ENOTFOUND,))
changes_count = status("mapping_changes_count", [c_void_p, c_int, POINTER(c_size_t)])
changes_object = status("mapping_changes_object", [c_void_p, c_int, c_size_t, POINTER(Object)])
changes_entity = status("mapping_changes_entity", [c_void_p, c_int, c_size_t, POINTER(c_char_p)])
changes_identity = status("mapping_changes_identity", [c_void_p, c_size_t, POINTER(c_char_p)])
changes_changed = status("mapping_changes_changed", [c_void_p, c_size_t, POINTER(c_char_p)])
POSITION_REMOVED, POSITION_INSERTED, POSITION_UPDATED, POSITION_MOVED = 1, 2, 3, 4
WATCH = ctypes.CFUNCTYPE(None, ContextP, c_void_p, c_void_p)
context_watch = status("mapping_context_watch", [ContextP, c_char_p, c_char_p, c_char_p, c_char_p, c_uint, WATCH, c_void_p,
                                                 POINTER(ctypes.c_uint64)])
fetch_change_results = status("mapping_fetch_change_results", [c_void_p, POINTER(ListP)])
fetch_change_count = status("mapping_fetch_change_count", [c_void_p, c_int, POINTER(c_size_t)])
fetch_change_position = status("mapping_fetch_change_position", [c_void_p, c_int, c_size_t, POINTER(c_size_t),
                                                                 POINTER(c_size_t)])
