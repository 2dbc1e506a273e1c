"""libmapping for Python: JSON from web APIs mapped into a live, identity-mapped object graph.

    import mapping
    with mapping.Context(spec) as ctx:
        people = ctx.import_json("person", payload)
        ada = ctx.get("Person", 1)
        ada["name"], ada.related("company")
"""
from . import _ffi
from .context import Context, Object, ObjectList, available_parsers
from .paths import Paginator, PathPattern, decode_query, resolve_url
from .manager import ObjectManager
from .errors import (BusyError, ConstraintError, ResponseError, DeniedError, DepthError, MappingError, MisuseError, NotFoundError, NullValueError, OutOfRangeError,
                     ParseError, PredicateError, SpecError, StaleObjectError, UnavailableError, UnknownNameError, UnmappableError,
                     WrongTypeError)

__version__ = _ffi.version().decode("ascii")

__all__ = [
    "Context", "Object", "ObjectList", "ObjectManager", "Paginator", "PathPattern", "decode_query", "resolve_url", "MappingError", "MisuseError", "SpecError", "ParseError", "WrongTypeError",
    "UnknownNameError", "NotFoundError", "StaleObjectError", "NullValueError", "DepthError", "OutOfRangeError",
    "UnmappableError", "DeniedError", "PredicateError", "ConstraintError", "ResponseError", "UnavailableError", "BusyError", "available_parsers", "__version__",
]
