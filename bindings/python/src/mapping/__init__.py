"""libmapping for Python: JSON from web APIs mapped into a live, identity-mapped object graph.

    import mapping
    with mapping.Context(spec) as ctx:
        people = ctx.import_json("person", payload)
        ada = ctx.get("Person", 1)
        ada["name"], ada.related("company")

Modules: `objects` (Object, ObjectList), `context` (Context), `observe` (Observer, ChangeSet,
FetchChange), `http` (paths, URLs, the paginator, response mapping, ObjectManager, Request),
`multipart` (Attachment and multipart/form-data bodies), `transport` (one cancellable HTTP exchange),
`batch` (many at once, with progress), `errors`
(MappingError and a subclass per status code); `_ffi` declares the C functions (those returning a
status raise through their errcheck) and reads the status codes from the library, `_lib` loads the
library, `_handle` is the base of every object that owns a library pointer. Each imports only those
below it: _lib, _ffi, errors, _handle, objects, observe, multipart, transport, batch, http, context
(tests/test_module_layers.py).
"""
from . import _ffi
from .objects import Object, ObjectList
from .context import Context, available_parsers
from .observe import ChangeSet, FetchChange, Observer
from .http import ObjectManager, Paginator, PathPattern, Request, decode_query, resolve_url
from .multipart import Attachment
from .errors import (BusyError, ConstraintError, ResponseError, DeniedError, DepthError, MappingError, MappingWarning, MisuseError, NotFoundError, NullValueError, OutOfRangeError,
                     ParseError, PredicateError, SpecError, StaleObjectError, UnavailableError, UnknownNameError, UnmappableError,
                     StoreError, TransportError, CancelledError, WrongTypeError, ConflictError, OutOfMemoryError)

__version__: str = _ffi.version().decode("ascii")

__all__ = [
    "Context", "Object", "ObjectList", "ChangeSet", "FetchChange", "Observer", "ObjectManager", "Request", "Attachment", "Paginator", "PathPattern", "decode_query", "resolve_url", "MappingError", "MappingWarning", "MisuseError", "SpecError", "ParseError", "WrongTypeError",
    "UnknownNameError", "NotFoundError", "StaleObjectError", "NullValueError", "DepthError", "OutOfRangeError",
    "UnmappableError", "DeniedError", "PredicateError", "ConstraintError", "ResponseError", "UnavailableError", "BusyError", "StoreError", "ConflictError", "OutOfMemoryError", "TransportError", "CancelledError", "available_parsers", "__version__",
]
