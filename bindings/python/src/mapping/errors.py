"""MappingError and its subclasses, one per status code of mapping.h.

Every class also derives from the built-in exception that fits, so code that knows nothing of this
binding can still catch its errors (`except ValueError`, `except LookupError`):

| class | built-in | why |
|---|---|---|
| MisuseError | ValueError | an invalid argument or a closed handle (Python's "I/O operation on closed file" is a ValueError too) |
| SpecError | ValueError | the spec given is not a valid spec |
| ParseError | ValueError | malformed JSON, as json.JSONDecodeError (itself a ValueError) |
| WrongTypeError | TypeError | a value of the wrong type (in a payload, or for a typed read) |
| UnknownNameError | LookupError | no entity, attribute, relationship or mapping of that name; not KeyError, whose str() would quote the message |
| NotFoundError | LookupError | no object with that identity, no route |
| StaleObjectError | ReferenceError | a handle whose object was deleted (or is another context's), as a dead weak reference |
| NullValueError | ValueError | a null value where one is needed |
| DepthError | ValueError | input nested too deeply |
| OutOfRangeError | ValueError | mostly a number out of range (a payload over max_input_size, a page or offset past 64 bits, too many contexts); the positions of ordered relationships it also covers would fit IndexError, but one class has one base |
| UnmappableError | ValueError | a payload that does not fit the mapping |
| PredicateError | ValueError | a predicate or sort that does not parse or names nothing |
| OutOfMemoryError | MemoryError | memory ran out while parsing a payload |
| BusyError | TimeoutError | another thread's transaction outlasted the busy timeout (TimeoutError is an OSError, so `except OSError` catches it too) |
| DeniedError, ConstraintError, ResponseError, UnavailableError, MappingError | none | no built-in means "a delete rule refused", "a model rule is broken", "the server answered with an error status" or "this build lacks the feature" |
| TransportError, CancelledError | ResponseError (TransportError also OSError) | no status code of their own: ObjectManager's requests that got no answer, or were cancelled |

The message, code, path, attribute, line, column and position are attributes; str(error) is the
message followed by the JSON path and the attribute when they are set: `cannot map
$.data.people[2].age into Person.age (integer): "abc" is not an integer (at $.data.people[2].age,
attribute Person.age)`.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Type

from . import _ffi


class MappingError(Exception):
    """A failed libmapping call: the status code, the message, and where (JSON path, attribute,
    line/column/position for parse errors)."""

    code: int  # the library's number for the class's status name (CLASSES, below)

    def __init__(self, message: str, code: Optional[int] = None, path: str = "", attribute: str = "",
                 line: int = 0, column: int = 0, position: int = 0) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.path = path
        self.attribute = attribute
        self.line = line
        self.column = column
        self.position = position

    def __str__(self) -> str:
        where = []
        if self.path:
            where.append(f"at {self.path}")
        if self.attribute:
            where.append(f"attribute {self.attribute}")
        return f"{self.message} ({', '.join(where)})" if where else self.message


class MisuseError(MappingError, ValueError):
    """An invalid argument, or a closed handle."""


class SpecError(MappingError, ValueError):
    """The spec given is not a valid spec; `path` points into it."""


class ParseError(MappingError, ValueError):
    """Malformed JSON; `line`, `column` and `position` say where."""


class WrongTypeError(MappingError, TypeError):
    """A value of the wrong type, in a payload or for a typed read."""


class UnknownNameError(MappingError, LookupError):
    """No entity, attribute, relationship or mapping of that name."""


class NotFoundError(MappingError, LookupError):
    """No object with that identity, or no route."""


class StaleObjectError(MappingError, ReferenceError):
    """A handle whose object was deleted, or is another context's."""


class NullValueError(MappingError, ValueError):
    """A null value where one is needed."""


class DepthError(MappingError, ValueError):
    """Input nested too deeply."""


class OutOfRangeError(MappingError, ValueError):
    """A number or a position out of range (a payload over max_input_size among them)."""


class UnmappableError(MappingError, ValueError):
    """A payload that does not fit the mapping (nothing at its rootPath, a strict import's miss)."""


class MappingWarning(UserWarning):
    """A mistake an import made loud (`import_json(..., warn=True)`): `kind` is "unmatched_key_path"
    (a key path of a mapping matched nothing in the whole payload; `where` is the key path, `count`
    the mapping's representations) or "missing_identification" (representations without their
    identification, each a new object with no identity; `where` is the JSON path of the first,
    `count` how many). `mapping` and `element` (Entity.attribute, or the entity) say where."""

    def __init__(self, kind: str, mapping: str, element: str, where: str, count: int, message: str):
        super().__init__(message)
        self.kind, self.mapping, self.element, self.where, self.count = kind, mapping, element, where, count


class DeniedError(MappingError):
    """A deletion refused by a relationship whose delete rule is deny."""


class PredicateError(MappingError, ValueError):
    """A predicate or sort that does not parse or names nothing; `column` says where."""


class ConstraintError(MappingError):
    """A model rule broken: minCount/maxCount, or an identity already taken."""


class ResponseError(MappingError):
    """An HTTP error status: the message starts with the method, URL and status, then the payload's
    error messages. ObjectManager sets `status`, `method` and `url`."""
    status: Optional[int] = None
    method: Optional[str] = None
    url: Optional[str] = None


class TransportError(ResponseError, OSError):
    """ObjectManager could not complete a request (connection refused, a timeout, a name that does not
    resolve): no HTTP status. `method` and `url` say which request; the cause is chained."""

    def __init__(self, method: str, url: str, reason: str):
        MappingError.__init__(self, f"{method} {url} failed: {reason}")
        self.method, self.url = method, url


class CancelledError(ResponseError):
    """ObjectManager.cancel() cancelled this request (RestKit's cancelled object request operation):
    either before it was sent, or while it waited for its answer (the server may then have acted on
    it). No status; nothing of the answer was mapped. `method` and `url` say which request."""

    def __init__(self, method: str, url: str):
        MappingError.__init__(self, f"{method} {url} was cancelled")
        self.method, self.url = method, url


class UnavailableError(MappingError):
    """A feature this build of the library or this machine lacks: the simdjson parser or the PostgreSQL
    store (built without them), or the plugin that holds one, or the library it needs."""


class BusyError(MappingError, TimeoutError):
    """Another thread's transaction on the context stayed open past the busy timeout, or the store file
    is open in another context; nothing changed."""


class StoreError(MappingError, OSError):
    """The store's database file cannot be used: not a database, corrupt, written by a newer version,
    read-only or full (the message says which); the file and the graph are as they were."""


class ConflictError(MappingError):
    """Another process changed or deleted, since this context read them, objects this commit changes
    (a PostgreSQL store); nothing changed, and the graph is brought up to the database before the
    next call, so the change can be made again on what is there now."""


class OutOfMemoryError(MappingError, MemoryError):
    """Memory ran out while parsing a payload (the message says what it needed and how to need
    less: the simdjson parser, a chunked import, a maximum input size); nothing changed."""


CLASSES: Dict[str, Type[MappingError]] = {
    "MAPPING_ERROR": MappingError, "MAPPING_EMISUSE": MisuseError, "MAPPING_ESPEC": SpecError,
    "MAPPING_EPARSE": ParseError, "MAPPING_ETYPE": WrongTypeError, "MAPPING_ENAME": UnknownNameError,
    "MAPPING_ENOTFOUND": NotFoundError, "MAPPING_ESTALE": StaleObjectError, "MAPPING_ENULL": NullValueError,
    "MAPPING_EDEPTH": DepthError, "MAPPING_ERANGE": OutOfRangeError, "MAPPING_EMAPPING": UnmappableError,
    "MAPPING_EDENIED": DeniedError, "MAPPING_EPREDICATE": PredicateError, "MAPPING_ECONSTRAINT": ConstraintError,
    "MAPPING_ERESPONSE": ResponseError, "MAPPING_EUNAVAILABLE": UnavailableError, "MAPPING_EBUSY": BusyError,
    "MAPPING_ESTORE": StoreError, "MAPPING_ECONFLICT": ConflictError, "MAPPING_ENOMEM": OutOfMemoryError,
}
"""The class of each status name: the binding's choice. The numbers are the library's, so each
class's `code` is set from _ffi.STATUS_CODES here (ImportError for a name the library lacks). A
status the library names and this table does not (one a newer library added at the end) raises
MappingError with its code: refusing to import would break programs over a compatible library, and
tests/test_status_codes.py fails until the status has its class."""

for _name, _class in CLASSES.items():
    _class.code = _ffi.status_code(_name)
del _name, _class
_BY_CODE: Dict[int, Type[MappingError]] = {cls.code: cls for cls in CLASSES.values()}


def _text(raw: Optional[bytes]) -> str:
    return raw.decode("utf-8", "replace") if raw else ""


def error_from_status(code: int, context_pointer: Any = None) -> MappingError:
    """The exception for a failed call, built from the calling thread's error record: the context's
    for a call that took one, the context-less record (`context_pointer` None) otherwise."""
    record = _ffi.error_last(context_pointer).contents
    cls = _BY_CODE.get(code, MappingError)
    return cls(_text(record.message) or _text(_ffi.error_name(code)), code=code, path=_text(record.path),
               attribute=_text(record.attribute), line=record.line, column=record.column,
               position=record.position)


_ffi.set_error_factory(error_from_status)  # what the ffi table's errchecks raise
