"""HTTP: RestKit's path patterns, query strings and URLs, routes, request parameters, response mapping,
the paginator, and ObjectManager (real HTTP through the standard library). The engine does the
mapping; this module only moves bytes and names."""
from __future__ import annotations

import ctypes
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ContextManager, Dict, Mapping, Optional, Tuple, Union, cast

from . import _ffi
from ._handle import Handle
from .errors import NotFoundError, ResponseError, TransportError, UnmappableError
from .objects import Object, ObjectList, _encode, _json_bytes

if TYPE_CHECKING:
    from .context import Context

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"

Objects = Union[Object, Sequence[Object]]
Orphans = Tuple[str, Optional[str]]


# -- paths, queries and URLs, for hosts that do their own HTTP ------------------------------------

class PathPattern:
    """A RestKit/SOCKit path pattern such as "/users/:userID/articles/:slug\\.json"."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.interpolate({})  # report a malformed pattern now (MisuseError)

    def match(self, path: str, query: bool = False) -> Optional[Dict[str, Any]]:
        """The parameters (a dict of strings) if `path` matches, else None. With `query=True` the
        query string's parameters are included."""
        out = ctypes.c_void_p()
        if _ffi.path_match(self.pattern.encode("utf-8"), path.encode("utf-8"), _ffi.PATH_QUERY if query else 0,
                           ctypes.byref(out)) == _ffi.ENOTFOUND:
            return None
        return json.loads(_ffi.take_string(out.value))

    def interpolate(self, values: Union[Mapping[str, Any], Object], escape: bool = False) -> str:
        """The pattern filled from a dict (dotted key paths) or a graph Object."""
        out = ctypes.c_void_p()
        flags = _ffi.PATH_ESCAPE if escape else 0
        if isinstance(values, Object):
            _ffi.path_from_object(values.context._ptr, self.pattern.encode("utf-8"), values._handle, flags,
                                  ctypes.byref(out))
        else:
            _ffi.path_interpolate(self.pattern.encode("utf-8"), json.dumps(values).encode("utf-8"), flags,
                                  ctypes.byref(out))
        return _ffi.take_string(out.value)

    def __repr__(self) -> str:
        return f"PathPattern({self.pattern!r})"


def decode_query(query: str) -> Dict[str, Any]:
    """A query string as a dict, as RestKit decodes it (repeated keys give lists)."""
    out = ctypes.c_void_p()
    _ffi.query_decode(query.encode("utf-8"), ctypes.byref(out))
    return json.loads(_ffi.take_string(out.value))


def resolve_url(base: str, reference: str) -> str:
    """`reference` resolved against `base` (RFC 3986 §5.2)."""
    out = ctypes.c_void_p()
    _ffi.url_resolve(base.encode("utf-8"), reference.encode("utf-8"), ctypes.byref(out))
    return _ffi.take_string(out.value)


class Paginator(Handle):
    """RestKit's RKPaginator without the transport: `path(page)` to load, `update(page, body)` with what
    came back, then `per_page`, `current_page`, `page_count`, `object_count` (None while unknown),
    `offset`, `has_next_page`, `has_previous_page`. close() (or a `with` block) frees it; a finalizer
    does otherwise."""

    _kind = "paginator"

    def __init__(self, context: Context, pattern: str, per_page: int = 25) -> None:
        pointer = _ffi.PaginatorP()
        _ffi.paginator_new(context._ptr, pattern.encode("utf-8"), per_page, ctypes.byref(pointer))
        super().__init__(pointer, _ffi.paginator_free)

    def path(self, page: int) -> str:
        out = ctypes.c_void_p()
        _ffi.paginator_path(self._ptr, page, ctypes.byref(out))
        return _ffi.take_string(out.value)

    def update(self, page: int, body: Any) -> None:
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        data = data.encode("utf-8") if isinstance(data, str) else data
        _ffi.paginator_update(self._ptr, page, data, len(data))

    def _get(self, field: str) -> int:
        value = ctypes.c_longlong()
        _ffi.paginator_get(self._ptr, field.encode("ascii"), ctypes.byref(value))
        return value.value

    def _known(self, field: str) -> Optional[int]:
        value = self._get(field)
        return None if value < 0 else value

    @property
    def per_page(self) -> int:
        return self._get("perPage")

    @property
    def current_page(self) -> Optional[int]:
        return self._known("currentPage")

    @property
    def page_count(self) -> Optional[int]:
        return self._known("pageCount")

    @property
    def object_count(self) -> Optional[int]:
        return self._known("objectCount")

    @property
    def offset(self) -> int:
        return self._get("offset")

    @property
    def has_next_page(self) -> bool:
        return bool(self._get("hasNextPage"))

    @property
    def has_previous_page(self) -> bool:
        return bool(self._get("hasPreviousPage"))


# -- the HTTP half of Context -----------------------------------------------------------------------

class _ContextHTTP:
    """Routes, request parameters and response mapping: Context's methods for HTTP, kept here with the
    rest of HTTP. Context inherits them; they use its `_ptr`, `_own` and `_as_list`."""

    if TYPE_CHECKING:  # what Context provides
        @property
        def _ptr(self) -> Any: ...
        def _own(self, item: Any) -> None: ...
        def _as_list(self, objects: Iterable[Object]) -> ContextManager[Tuple[Sequence[Object], Any]]: ...

    def route_path(self, obj: Optional[Object] = None, method: str = "GET", *, name: Optional[str] = None,
                   relationship: Optional[str] = None, escape: bool = False) -> str:
        """The path of a route of the spec: the named one, or the one for `obj` (and its
        `relationship`) and `method`, filled from `obj`. Raises NotFoundError without a route."""
        if obj is not None:
            self._own(obj)
        out = ctypes.c_void_p()
        _ffi.route_path(self._ptr, _encode(name) if name else None, obj._handle if obj is not None else 0,
                        _encode(relationship) if relationship else None, _encode(method),
                        _ffi.PATH_ESCAPE if escape else 0, ctypes.byref(out))
        return _ffi.take_string(out.value)

    def parameters(self, objects: Objects, method: str = "POST", *, form: bool = False) -> str:
        """Request parameters for one Object or a list, by the spec's request descriptors: JSON text,
        or form-encoded text with `form=True`."""
        out = ctypes.c_void_p()
        with self._as_list([objects] if isinstance(objects, Object) else objects) as (_, selection):
            _ffi.parameters(self._ptr, selection, _encode(method), _ffi.SERIALIZE_FORM if form else 0,
                            ctypes.byref(out))
        return _ffi.take_string(out.value)

    def map_response(self, method: str, url: str, status: int, body: Any, *,
                     headers: Optional[Mapping[str, str]] = None, base_url: Optional[str] = None,
                     orphans: Optional[Orphans] = None, target: Optional[Object] = None) -> ObjectList:
        """Maps an HTTP response with the spec's response descriptors (docs/http.md): returns the
        objects; raises ResponseError for an error status (with the payload's error messages).
        For a GET, `orphans=(entity, predicate or None)` deletes the objects of that scope the
        response did not touch. `target=obj` (the object sent) maps a single top-level
        representation into `obj` whatever its identity, so a new object learns its server id."""
        data = _json_bytes(body) if body not in (None, b"", "") else b""
        response = _ffi.Response(version=_ffi.RESPONSE_VERSION, method=_encode(method), url=_encode(url), status=status,
                                 headers=json.dumps(headers).encode("utf-8") if headers is not None else None,
                                 body=data, body_len=len(data), base_url=_encode(base_url) if base_url else None)
        if target is not None:
            self._own(target)
            response.target = target._handle
        if orphans is not None:
            response.orphan_entity = _encode(orphans[0])
            response.orphan_predicate = _encode(orphans[1]) if orphans[1] is not None else None
        result = _ffi.ListP()
        _ffi.map_response(self._ptr, ctypes.byref(response), ctypes.byref(result))
        return ObjectList(cast("Context", self), result)


# -- ObjectManager ------------------------------------------------------------------------------------

class ObjectManager:
    """Talks to one API at `base_url` and maps its responses into `context` with the spec's routes,
    response descriptors and request descriptors: RestKit's object manager in a few lines over the
    engine, with real HTTP through the standard library.

        manager = ObjectManager("http://127.0.0.1:8000/api/", ctx)
        users = manager.get_objects("users", {"page": 2})
        manager.put_object(users[0])
    """

    def __init__(self, base_url: str, context: Context, *, headers: Optional[Mapping[str, str]] = None,
                 timeout: float = 10.0, form: bool = False) -> None:
        self.base_url = base_url
        self.context = context
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.form = form  # send request parameters form-encoded rather than as JSON

    # -- reading ---------------------------------------------------------------------------------

    def get_objects(self, path: str, params: Optional[Mapping[str, Any]] = None, *,
                    orphans: Optional[Orphans] = None) -> ObjectList:
        """GET `path` (relative to the base URL) with query `params`; the mapped objects. With
        `orphans=(entity, predicate or None)`, local objects of that scope the response did not
        include are deleted (RestKit's orphan deletion; an error response deletes nothing)."""
        return self._send("GET", path, params=params, orphans=orphans)

    def get_object(self, obj: Object, params: Optional[Mapping[str, Any]] = None) -> ObjectList:
        """GET the route of `obj`; the mapped objects (`obj` itself, updated, when the API returns it)."""
        return self._send("GET", self.context.route_path(obj, "GET"), params=params)

    def paginate(self, pattern: str, per_page: int = 25) -> Iterator[ObjectList]:
        """Yields the objects of each page of a paginated list, loading pages in turn while the
        paginator says there is a next one. `pattern` uses :perPage, :currentPage and :offset."""
        with Paginator(self.context, pattern, per_page) as paginator:
            page = 1
            while True:
                objects, payload = self._send_raw("GET", paginator.path(page))
                paginator.update(page, payload if payload is not None else b"{}")
                yield objects
                if not paginator.has_next_page:
                    return
                page += 1

    # -- writing ---------------------------------------------------------------------------------

    def post_object(self, obj: Object, path: Optional[str] = None, *, form: Optional[bool] = None) -> ObjectList:
        """POST `obj`'s parameters (its request descriptor) to `path` or its POST route; a single object
        in the response is mapped into `obj` (RestKit's target object), so a new object learns the id
        the server gave it."""
        return self._send_object("POST", obj, path, form)

    def put_object(self, obj: Object, path: Optional[str] = None, *, form: Optional[bool] = None) -> ObjectList:
        return self._send_object("PUT", obj, path, form)

    def patch_object(self, obj: Object, path: Optional[str] = None, *, form: Optional[bool] = None) -> ObjectList:
        return self._send_object("PATCH", obj, path, form)

    def delete_object(self, obj: Object, path: Optional[str] = None) -> None:
        """DELETE `obj`'s route; on 2xx, 404 or 410 the object is deleted locally as well."""
        path = path or self.context.route_path(obj, "DELETE")
        try:
            self._send("DELETE", path)
        except ResponseError as error:
            if error.status not in (404, 410):
                raise
        except (NotFoundError, UnmappableError):
            pass  # a 2xx answer with nothing to map (no body, `{}`): the deletion succeeded
        if obj.is_live():
            self.context.delete(obj)

    # -- plumbing --------------------------------------------------------------------------------

    def _send_object(self, method: str, obj: Object, path: Optional[str], form: Optional[bool]) -> ObjectList:
        form = self.form if form is None else form
        body = self.context.parameters(obj, method, form=form)
        return self._send(method, path or self.context.route_path(obj, method), body=body,
                          content_type=FORM if form else JSON, target=obj)

    def url(self, path: str, params: Optional[Mapping[str, Any]] = None) -> str:
        url = resolve_url(self.base_url, path)
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params, doseq=True)
        return url

    def _send(self, method: str, path: str, **options: Any) -> ObjectList:
        return self._send_raw(method, path, **options)[0]

    def _send_raw(self, method: str, path: str, *, params: Optional[Mapping[str, Any]] = None,
                  body: Optional[str] = None, content_type: Optional[str] = None, orphans: Optional[Orphans] = None,
                  target: Optional[Object] = None) -> Tuple[ObjectList, Any]:
        """The mapped objects and the decoded payload of one request."""
        url = self.url(path, params)
        headers = {"Accept": f"{JSON}, {FORM};q=0.5", **self.headers}
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(url, data=body.encode("utf-8") if body is not None else None,
                                         headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, data, kind = response.status, response.read(), response.headers.get_content_type()
        except urllib.error.HTTPError as error:
            status, data, kind = error.code, error.read(), error.headers.get_content_type()
        except (urllib.error.URLError, OSError) as error:  # no answer at all: refused, timed out, no such host
            reason = error.reason if isinstance(error, urllib.error.URLError) else error
            raise TransportError(method, url, str(reason)) from error
        payload = self._decode(data, kind)
        try:
            objects = self.context.map_response(method, url, status, payload, headers=headers,
                                                base_url=self.base_url, orphans=orphans, target=target)
        except ResponseError as error:
            error.status, error.method, error.url = status, method, url
            raise
        except UnmappableError:  # an empty success without descriptors maps nothing
            if 200 <= status < 300 and not data:
                return ObjectList(self.context), payload
            raise
        return objects, payload

    @staticmethod
    def _decode(data: bytes, kind: str) -> Any:
        if not data:
            return None
        if kind == FORM:
            return decode_query(data.decode("utf-8"))
        return data  # JSON text, parsed by the engine
