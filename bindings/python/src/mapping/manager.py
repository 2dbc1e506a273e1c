"""ObjectManager: RestKit's object manager in a few lines over the engine, with real HTTP through the
standard library. The engine does the mapping; this class only moves bytes."""
import json
import urllib.error
import urllib.parse
import urllib.request

from . import paths
from .context import Object
from .errors import NotFoundError, ResponseError, UnmappableError

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


class ObjectManager:
    """Talks to one API at `base_url` and maps its responses into `context` with the spec's routes,
    response descriptors and request descriptors.

        manager = ObjectManager("http://127.0.0.1:8000/api/", ctx)
        users = manager.get_objects("users", {"page": 2})
        manager.put_object(users[0])
    """

    def __init__(self, base_url, context, *, headers=None, timeout=10.0, form=False):
        self.base_url = base_url
        self.context = context
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.form = form  # send request parameters form-encoded rather than as JSON

    # -- reading ---------------------------------------------------------------------------------

    def get_objects(self, path, params=None, *, orphans=None):
        """GET `path` (relative to the base URL) with query `params`; the mapped objects. With
        `orphans=(entity, predicate or None)`, local objects of that scope the response did not
        include are deleted (RestKit's orphan deletion; an error response deletes nothing)."""
        return self._send("GET", path, params=params, orphans=orphans)

    def get_object(self, obj, params=None):
        """GET the route of `obj`; the mapped objects (`obj` itself, updated, when the API returns it)."""
        return self._send("GET", self.context.route_path(obj, "GET"), params=params)

    def paginate(self, pattern, per_page=25):
        """Yields the objects of each page of a paginated list, loading pages in turn while the
        paginator says there is a next one. `pattern` uses :perPage, :currentPage and :offset."""
        paginator = paths.Paginator(self.context, pattern, per_page)
        page = 1
        while True:
            objects, payload = self._send_raw("GET", paginator.path(page))
            paginator.update(page, payload if payload is not None else b"{}")
            yield objects
            if not paginator.has_next_page:
                return
            page += 1

    # -- writing ---------------------------------------------------------------------------------

    def post_object(self, obj, path=None, *, form=None):
        """POST `obj`'s parameters (its request descriptor) to `path` or its POST route; a single object
        in the response is mapped into `obj` (RestKit's target object), so a new object learns the id
        the server gave it."""
        return self._send_object("POST", obj, path, form)

    def put_object(self, obj, path=None, *, form=None):
        return self._send_object("PUT", obj, path, form)

    def patch_object(self, obj, path=None, *, form=None):
        return self._send_object("PATCH", obj, path, form)

    def delete_object(self, obj, path=None):
        """DELETE `obj`'s route; on 2xx, 404 or 410 the object is deleted locally as well."""
        path = path or self.context.route_path(obj, "DELETE")
        try:
            self._send("DELETE", path)
        except ResponseError as error:
            if getattr(error, "status", None) not in (404, 410):
                raise
        except (NotFoundError, UnmappableError):
            pass  # a 2xx answer with nothing to map (no body, `{}`): the deletion succeeded
        if obj.is_live():
            self.context.delete(obj)

    # -- plumbing --------------------------------------------------------------------------------

    def _send_object(self, method, obj, path, form):
        form = self.form if form is None else form
        body = self.context.parameters(obj, method, form=form)
        return self._send(method, path or self.context.route_path(obj, method), body=body,
                          content_type=FORM if form else JSON, target=obj)

    def url(self, path, params=None):
        url = paths.resolve_url(self.base_url, path)
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params, doseq=True)
        return url

    def _send(self, method, path, *, params=None, body=None, content_type=None, orphans=None, target=None):
        return self._send_raw(method, path, params=params, body=body, content_type=content_type, orphans=orphans,
                              target=target)[0]

    def _send_raw(self, method, path, *, params=None, body=None, content_type=None, orphans=None, target=None):
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
        payload = self._decode(data, kind)
        try:
            objects = self.context.map_response(method, url, status, payload, headers=headers,
                                                base_url=self.base_url, orphans=orphans, target=target)
        except ResponseError as error:
            error.status = status
            raise
        except UnmappableError:  # an empty success without descriptors maps nothing
            if 200 <= status < 300 and not data:
                return [], payload
            raise
        return objects, payload

    @staticmethod
    def _decode(data, kind):
        if not data:
            return None
        if kind == FORM:
            return paths.decode_query(data.decode("utf-8"))
        return data  # JSON text, parsed by the engine
