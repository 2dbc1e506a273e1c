"""06 — Map an HTTP response the host fetched itself (here: read from a file), with the spec's response
descriptors, and build the URL of an object from a path pattern.
Introduces: Context.map_response, ResponseError, PathPattern, resolve_url."""
import mapping
from _common import open_context, payload

with open_context() as ctx:
    url = "https://api.github.com/events?page=1"
    events = ctx.map_response("GET", url, 200, payload(), headers={"Accept": "application/json"},
                              base_url="https://api.github.com")
    print(f"mapped {len(events)} events from GET {url}")
    try:
        ctx.map_response("GET", url, 404, {"message": "Not Found"}, base_url="https://api.github.com")
    except mapping.ResponseError as error:
        print(f"404: {type(error).__name__}: {error}")
    path = mapping.PathPattern("repos/:repo.name/events/:id").interpolate(events[0])
    print(f"first event: {mapping.resolve_url('https://api.github.com/', path)}")
