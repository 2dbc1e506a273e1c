"""Path patterns and query strings with RestKit's rules, for hosts that do their own HTTP."""
import ctypes
import json
import weakref

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


class Paginator:
    """RestKit's RKPaginator without the transport: `path(page)` to load, `update(page, body)` with what
    came back, then `per_page`, `current_page`, `page_count`, `object_count` (None while unknown),
    `offset`, `has_next_page`, `has_previous_page`."""

    def __init__(self, context, pattern, per_page=25):
        pointer = _ffi.PaginatorP()
        context._check(_ffi.paginator_new(context._ptr, pattern.encode("utf-8"), per_page, ctypes.byref(pointer)))
        self._pointer = pointer
        self._finalizer = weakref.finalize(self, _ffi.paginator_free, pointer)

    def path(self, page):
        out = ctypes.c_void_p()
        check(_ffi.paginator_path(self._pointer, page, ctypes.byref(out)))
        return _ffi.take_string(out.value)

    def update(self, page, body):
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        data = data.encode("utf-8") if isinstance(data, str) else data
        check(_ffi.paginator_update(self._pointer, page, data, len(data)))

    def _get(self, field):
        value = ctypes.c_longlong()
        check(_ffi.paginator_get(self._pointer, field.encode("ascii"), ctypes.byref(value)))
        return value.value

    def _known(self, field):
        value = self._get(field)
        return None if value < 0 else value

    per_page = property(lambda self: self._get("perPage"))
    current_page = property(lambda self: self._known("currentPage"))
    page_count = property(lambda self: self._known("pageCount"))
    object_count = property(lambda self: self._known("objectCount"))
    offset = property(lambda self: self._get("offset"))
    has_next_page = property(lambda self: bool(self._get("hasNextPage")))
    has_previous_page = property(lambda self: bool(self._get("hasPreviousPage")))
