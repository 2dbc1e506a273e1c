"""HTTP: RestKit's path patterns, query strings and URLs, routes, request parameters, response mapping,
the paginator, and ObjectManager (real HTTP through the standard library: the exchange and its
cancelling in `transport`, batches in `batch`, multipart bodies in `multipart`). The engine does the
mapping; this module only moves bytes and names."""
from __future__ import annotations

import ctypes
import json
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ContextManager, Dict, List, Mapping, Optional, Tuple, Union, cast

from . import _ffi, batch
from ._handle import Handle
from .errors import MisuseError, NotFoundError, ResponseError, UnmappableError
from .multipart import Attachment, encode, flatten, form_fields, merge
from .objects import Object, ObjectList, _encode, _json_bytes
from .transport import Operation, Outstanding

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

@dataclass(frozen=True)
class Request:
    """A request an ObjectManager sends (`send`, `run_batch`): made by its `request`,
    `object_request` and `multipart_request`. `target` is the object the answer maps into (RestKit's
    target object); `orphans` the scope a GET's answer prunes."""
    method: str
    url: str
    body: Optional[bytes] = None
    content_type: Optional[str] = None
    target: Optional[Object] = None
    orphans: Optional[Orphans] = None


Outcome = Union[ObjectList, Exception]


class ObjectManager:
    """Talks to one API at `base_url` and maps its responses into `context` with the spec's routes,
    response descriptors and request descriptors: RestKit's object manager in a few lines over the
    engine, with real HTTP through the standard library.

        manager = ObjectManager("http://127.0.0.1:8000/api/", ctx)
        users = manager.get_objects("users", {"page": 2})
        manager.put_object(users[0])

    Every request it sends is outstanding until its answer is mapped, and `cancel()` from any thread
    can stop it; `run_batch` sends many at once."""

    def __init__(self, base_url: str, context: Context, *, headers: Optional[Mapping[str, str]] = None,
                 timeout: float = 10.0, form: bool = False) -> None:
        self.base_url = base_url
        self.context = context
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.form = form  # send request parameters form-encoded rather than as JSON
        self._outstanding = Outstanding()

    # -- reading ---------------------------------------------------------------------------------

    def get_objects(self, path: str, params: Optional[Mapping[str, Any]] = None, *,
                    orphans: Optional[Orphans] = None) -> ObjectList:
        """GET `path` (relative to the base URL) with query `params`; the mapped objects. With
        `orphans=(entity, predicate or None)`, local objects of that scope the response did not
        include are deleted (RestKit's orphan deletion; an error response deletes nothing)."""
        return self.send(self.request("GET", path, params, orphans=orphans))

    def get_object(self, obj: Object, params: Optional[Mapping[str, Any]] = None) -> ObjectList:
        """GET the route of `obj`; the mapped objects (`obj` itself, updated, when the API returns it)."""
        return self.send(self.request("GET", self.context.route_path(obj, "GET"), params))

    def paginate(self, pattern: str, per_page: int = 25) -> Iterator[ObjectList]:
        """Yields the objects of each page of a paginated list, loading pages in turn while the
        paginator says there is a next one. `pattern` uses :perPage, :currentPage and :offset."""
        with Paginator(self.context, pattern, per_page) as paginator:
            page = 1
            while True:
                objects, payload = self._perform(self.request("GET", paginator.path(page)))
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
        return self.send(self.object_request(obj, "POST", path, form=form))

    def put_object(self, obj: Object, path: Optional[str] = None, *, form: Optional[bool] = None) -> ObjectList:
        return self.send(self.object_request(obj, "PUT", path, form=form))

    def patch_object(self, obj: Object, path: Optional[str] = None, *, form: Optional[bool] = None) -> ObjectList:
        return self.send(self.object_request(obj, "PATCH", path, form=form))

    def delete_object(self, obj: Object, path: Optional[str] = None) -> None:
        """DELETE `obj`'s route; on 2xx, 404 or 410 the object is deleted locally as well."""
        path = path or self.context.route_path(obj, "DELETE")
        try:
            self.send(self.request("DELETE", path))
        except ResponseError as error:
            if error.status not in (404, 410):
                raise
        except (NotFoundError, UnmappableError):
            pass  # a 2xx answer with nothing to map (no body, `{}`): the deletion succeeded
        if obj.is_live():
            self.context.delete(obj)

    # -- requests, sent one by one or in batches ----------------------------------------------------

    def request(self, method: str, path: str, params: Optional[Mapping[str, Any]] = None, *,
                orphans: Optional[Orphans] = None) -> Request:
        """A request for `path` (relative to the base URL) with query `params` and no body, as
        get_objects sends it."""
        return Request(method.upper(), self.url(path, params), orphans=orphans)

    def object_request(self, obj: Object, method: str, path: Optional[str] = None, *,
                       form: Optional[bool] = None) -> Request:
        """The request post_object, put_object and patch_object send: `obj`'s parameters by its
        request descriptor (form-encoded with `form=True`, else JSON) to `path` or its route."""
        form = self.form if form is None else form
        body = self.context.parameters(obj, method, form=form).encode("utf-8")
        return Request(method.upper(), self.url(path or self.context.route_path(obj, method)), body,
                       FORM if form else JSON, target=obj)

    def multipart_request(self, obj: Optional[Object], method: str = "POST", path: Optional[str] = None, *,
                          attachments: Sequence[Attachment] = (),
                          params: Optional[Mapping[str, Any]] = None) -> Request:
        """A multipart/form-data request (RestKit's multipartFormRequestWithObject:…): `obj`'s
        parameters by its request descriptor, one field each as form encoding names them
        (`user[name]`), then `params` (flattened alike; they replace object fields of the same
        name), then the `attachments`. To `path` or `obj`'s route; its answer maps into `obj`."""
        if isinstance(attachments, Attachment):
            raise MisuseError("attachments takes a list: attachments=[Attachment(...)]")
        if obj is None and path is None:
            raise MisuseError("multipart_request without an object needs a path")
        fields = form_fields(self.context.parameters(obj, method, form=True)) if obj is not None else []
        body, content_type = encode(merge(fields, flatten(params or {})), list(attachments))
        route = path if path is not None else self.context.route_path(cast(Object, obj), method)
        return Request(method.upper(), self.url(route), body, content_type, target=obj)

    def send(self, request: Request) -> ObjectList:
        """Sends a request and maps its answer, as get_objects and post_object do: the mapped
        objects. ResponseError for an error status, TransportError without an answer,
        CancelledError if cancel() stopped it."""
        return self._perform(request)[0]

    def run_batch(self, requests: Iterable[Request], max_concurrent: int = 4,
                  progress: Optional[Callable[[int, int], None]] = None) -> List[Outcome]:
        """Sends the requests, at most `max_concurrent` at once (in their order), and returns one
        outcome per request, in the requests' order: the mapped ObjectList, or the exception it
        raised (ResponseError, TransportError, CancelledError, …), never raised
        (RestKit's enqueueBatchOfObjectRequestOperations:progress:completion:). Answers are mapped
        on this thread as they come, then `progress(done, total)` is called: done 1, 2, … total.
        If progress raises, the requests not finished are cancelled and the exception propagates."""
        requests = list(requests)
        for request in requests:
            if not isinstance(request, Request):
                raise MisuseError(f"run_batch takes Requests (manager.request(...), object_request, "
                                  f"multipart_request), not {type(request).__name__}")
        operations = [self._outstanding.add(Operation(request.method, request.url)) for request in requests]

        def fetch(index: int) -> Tuple[int, bytes, str]:
            return self._fetch(requests[index], operations[index])

        def finish(index: int, answer: Tuple[int, bytes, str]) -> ObjectList:
            return self._map(requests[index], operations[index], answer)[0]

        def abort() -> None:
            for operation in operations:
                operation.cancel()

        try:
            return batch.run(len(requests), fetch, finish, max_concurrent=max_concurrent, progress=progress,
                             abort=abort)
        finally:
            for operation in operations:
                self._outstanding.remove(operation)

    def cancel(self, method: Optional[str] = None, path_pattern: Optional[str] = None) -> int:
        """Cancels this manager's outstanding requests (queued in a batch, or waiting for or reading
        their answer, on any thread) with `method` (None or "ANY" for every method) whose URL matches
        `path_pattern` (None for every path), a path pattern matched as response descriptors' are:
        against the URL past the base URL. Returns how many it cancelled; each raises, or ends as,
        CancelledError. A request whose answer is being mapped is not stopped. A request already
        sent may have been acted on by the server (RestKit's
        cancelAllObjectRequestOperationsWithMethod:matchingPathPattern:)."""
        pattern = PathPattern(path_pattern) if path_pattern is not None else None
        if path_pattern is not None and path_pattern.startswith("/") \
                and urllib.parse.urlsplit(self.base_url).path.endswith("/"):
            raise MisuseError(f"path_pattern {path_pattern!r} is matched against the URL past the base URL "
                              f"{self.base_url}, which never starts with '/': write {path_pattern.lstrip('/')!r}")
        wanted = None if method is None or method.upper() == "ANY" else method.upper()

        def matches(operation: Operation) -> bool:
            return ((wanted is None or operation.method == wanted)
                    and (pattern is None or pattern.match(self._relative(operation.url)) is not None))
        return self._outstanding.cancel(matches)

    # -- plumbing --------------------------------------------------------------------------------

    def url(self, path: str, params: Optional[Mapping[str, Any]] = None) -> str:
        url = resolve_url(self.base_url, path)
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params, doseq=True)
        return url

    def _relative(self, url: str) -> str:
        """The URL past the base URL, or its path and query when it is elsewhere."""
        if url.startswith(self.base_url):
            return url[len(self.base_url):]
        parts = urllib.parse.urlsplit(url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    def _perform(self, request: Request) -> Tuple[ObjectList, Any]:
        """Sends one request on this thread: the mapped objects and the decoded payload."""
        operation = self._outstanding.add(Operation(request.method, request.url))
        try:
            return self._map(request, operation, self._fetch(request, operation))
        finally:
            self._outstanding.remove(operation)

    def _headers(self, request: Request) -> Dict[str, str]:
        headers = {"Accept": f"{JSON}, {FORM};q=0.5", **self.headers}
        if request.content_type:
            headers["Content-Type"] = request.content_type
        return headers

    def _fetch(self, request: Request, operation: Operation) -> Tuple[int, bytes, str]:
        """The HTTP half, on any thread: status, body and content type of the answer."""
        try:
            outgoing = urllib.request.Request(request.url, data=request.body, headers=self._headers(request),
                                              method=request.method)
        except ValueError as error:  # urllib's word for a URL it cannot read
            raise MisuseError(f"{request.method} {request.url}: not a URL this manager can open ({error}); "
                              "give the ObjectManager an absolute base URL such as http://host/api/") from error
        return operation.exchange(outgoing, self.timeout)

    def _map(self, request: Request, operation: Operation, answer: Tuple[int, bytes, str]) -> Tuple[ObjectList, Any]:
        """The mapping half: the answer mapped by the response descriptors, unless cancelled first."""
        operation.claim()
        status, data, kind = answer
        method, url = request.method, request.url
        payload = self._decode(data, kind)
        try:
            objects = self.context.map_response(method, url, status, payload, headers=self._headers(request),
                                                base_url=self.base_url, orphans=request.orphans,
                                                target=request.target)
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
