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
"""
import ctypes
from ctypes import POINTER, c_bool, c_char_p, c_double, c_int, c_int64, c_longlong, c_size_t, c_uint, c_uint64, c_void_p

from ._lib import lib


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


def function(name, argtypes, restype):
    """A C function as is: its argtypes and restype, no check of what it returns."""
    declared = getattr(lib, name)
    declared.argtypes = argtypes
    declared.restype = restype
    return declared


def _raise(code, context):
    from .errors import error_from_status  # imported here: errors reads this module's constants
    raise error_from_status(code, context)


def _errcheck(takes_context, allow):
    """The errcheck of a status-returning function: the code itself when it is OK or allowed, else the
    error raised, with the detail of the call's context (its first argument) or of NULL."""
    if takes_context:
        def errcheck(code, _function, arguments):
            if code == OK or code in allow:
                return code
            _raise(code, arguments[0])
    else:
        def errcheck(code, _function, _arguments):
            if code == OK or code in allow:
                return code
            _raise(code, None)
    return errcheck


def status(name, argtypes, allow=()):
    """A C function returning a mapping_status, checked by its errcheck (see the module's docstring)."""
    declared = function(name, argtypes, c_int)
    declared.errcheck = _errcheck(bool(argtypes) and argtypes[0] is ContextP, frozenset(allow))
    return declared


NUL_TERMINATED = ctypes.c_size_t(-1).value

# Status codes, types and flags, as in mapping.h (bindings/python/tests/test_abi_tables.py compares
# every one of them, and the structs above, with the header).
NO_OBJECT = 0
WAIT_FOREVER = -1
(OK, ERROR, EMISUSE, ESPEC, EPARSE, ETYPE, ENAME, ENOTFOUND, ESTALE, ENULL, EDEPTH, ERANGE, EMAPPING, EDENIED,
 EPREDICATE, ECONSTRAINT, ERESPONSE, EUNAVAILABLE, EBUSY, ESTORE, ECONFLICT, ENOMEM) = (
    0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16, -17, -18, -19, -20, -21)
TYPE_STRING, TYPE_INTEGER, TYPE_DOUBLE, TYPE_DECIMAL, TYPE_BOOLEAN, TYPE_DATE, TYPE_JSON = range(1, 8)
SERIALIZE_NULLS, SERIALIZE_PRETTY, SERIALIZE_NO_ROOT, SERIALIZE_FORM = 1, 2, 4, 8

version = function("mapping_version", [], c_char_p)
version_number = function("mapping_version_number", [], c_int)
error_name = function("mapping_error_name", [c_int], c_char_p)
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
CHECK_WARN, CHECK_STRICT = 1, 2
WARNING_UNMATCHED_KEY_PATH, WARNING_MISSING_IDENTIFICATION = 1, 2
WARNING_NAMES = {WARNING_UNMATCHED_KEY_PATH: "unmatched_key_path", WARNING_MISSING_IDENTIFICATION: "missing_identification"}


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
PARSERS = {"jansson": PARSER_JANSSON, "simdjson": PARSER_SIMDJSON}
parser_available = function("mapping_parser_is_available", [c_int], c_int)
context_set_parser = status("mapping_context_set_parser", [ContextP, c_int])
context_set_busy_timeout = status("mapping_context_set_busy_timeout", [ContextP, c_int])
context_set_max_input = status("mapping_context_set_max_input", [ContextP, c_size_t])
EVENT_WILL_MAP_COLLECTION, EVENT_WILL_MAP_OBJECT, EVENT_DID_MAP_OBJECT, EVENT_DID_MAP_COLLECTION = 1, 2, 3, 4
EVENT_NAMES = {EVENT_WILL_MAP_COLLECTION: "will_map_collection", EVENT_WILL_MAP_OBJECT: "will_map_object",
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


def take_string(pointer):
    """Copies a string the library returned as new, then releases it."""
    if not pointer:
        return None
    try:
        return ctypes.string_at(pointer).decode("utf-8")
    finally:
        free(pointer)

# Observing commits.
CHANGE_INSERTED, CHANGE_UPDATED, CHANGE_DELETED = 1, 2, 3
OBSERVER = ctypes.CFUNCTYPE(None, ContextP, c_void_p, c_void_p)
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
