"""Path patterns and query strings with RestKit's rules, for hosts that do their own HTTP."""
import ctypes
import json

from . import _ffi
from .context import Object
from .errors import check


class PathPattern:
    """A RestKit/SOCKit path pattern such as "/users/:userID/articles/:slug\\.json"."""

    def __init__(self, pattern):
        self.pattern = pattern
        self.interpolate({})  # report a malformed pattern now (MisuseError)

    def match(self, path, query=False):
        """The parameters (a dict of strings) if `path` matches, else None. With `query=True` the
        query string's parameters are included."""
        out = ctypes.c_void_p()
        code = _ffi.path_match(self.pattern.encode("utf-8"), path.encode("utf-8"),
                               _ffi.PATH_QUERY if query else 0, ctypes.byref(out))
        if code == _ffi.ENOTFOUND:
            return None
        check(code)
        return json.loads(_ffi.take_string(out.value))

    def interpolate(self, values, escape=False):
        """The pattern filled from a dict (dotted key paths) or a graph Object."""
        out = ctypes.c_void_p()
        flags = _ffi.PATH_ESCAPE if escape else 0
        if isinstance(values, Object):
            context = values.context
            context._check(_ffi.path_from_object(context._ptr, self.pattern.encode("utf-8"), values._handle, flags,
                                                 ctypes.byref(out)))
        else:
            check(_ffi.path_interpolate(self.pattern.encode("utf-8"), json.dumps(values).encode("utf-8"), flags,
                                        ctypes.byref(out)))
        return _ffi.take_string(out.value)

    def __repr__(self):
        return f"PathPattern({self.pattern!r})"


def decode_query(query):
    """A query string as a dict, as RestKit decodes it (repeated keys give lists)."""
    out = ctypes.c_void_p()
    check(_ffi.query_decode(query.encode("utf-8"), ctypes.byref(out)))
    return json.loads(_ffi.take_string(out.value))


def resolve_url(base, reference):
    """`reference` resolved against `base` (RFC 3986 §5.2)."""
    out = ctypes.c_void_p()
    check(_ffi.url_resolve(base.encode("utf-8"), reference.encode("utf-8"), ctypes.byref(out)))
    return _ffi.take_string(out.value)
