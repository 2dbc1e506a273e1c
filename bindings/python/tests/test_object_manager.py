"""The Python ObjectManager against a real HTTP server on 127.0.0.1 (the standard library's, in a
thread, on a free port): users, articles with comments, a paginated list; GET, POST (JSON and form),
PUT, DELETE and an error response, asserting the graph after each step."""
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import mapping

SPEC = {
    "entities": {
        "User": {"attributes": {"id": "integer", "name": "string"},
                 "relationships": {"articles": {"entity": "Article", "toMany": True, "inverse": "author"}}},
        "Article": {"attributes": {"id": "integer", "title": "string"},
                    "relationships": {"author": {"entity": "User", "inverse": "articles"},
                                      "comments": {"entity": "Comment", "toMany": True, "ordered": True, "inverse": "article"}}},
        "Comment": {"attributes": {"id": "integer", "body": "string"},
                    "relationships": {"article": {"entity": "Article", "inverse": "comments"}}},
    },
    "mappings": {
        "user": {"entity": "User", "attributes": {"id": "id", "name": "name"}},
        "article": {"entity": "Article", "attributes": {"id": "id", "title": "title"},
                    "relationships": {"author": {"keyPath": "author_id"}, "comments": {"mapping": "comment"}}},
        "comment": {"entity": "Comment", "attributes": {"id": "id", "body": "body"}},
    },
    "routes": [{"entity": "User", "method": ["GET", "PUT", "DELETE"], "path": "users/:id"},
               {"entity": "User", "method": "POST", "path": "users"}],
    "responseDescriptors": [
        {"mapping": "user", "method": "GET", "pathPattern": "users", "keyPath": "users"},
        {"mapping": "user", "method": "ANY", "pathPattern": "users/:id", "keyPath": "user"},
        {"mapping": "user", "method": "POST", "pathPattern": "users", "keyPath": "user", "statusCodes": [201]},
        {"mapping": "article", "method": "GET", "pathPattern": "articles", "keyPath": "articles"},
        {"mapping": "user", "method": "GET", "pathPattern": "paginate", "keyPath": "entries"},
        {"errorMessage": "message", "keyPath": "errors"},
    ],
    "requestDescriptors": [{"entity": "User", "method": "ANY", "mapping": "user", "rootKeyPath": "user"}],
}


class API(BaseHTTPRequestHandler):
    users = {}
    log = []
    delete_reply = None  # (status, payload) for DELETE, or None for the real behaviour

    def log_message(self, *args):  # keep pytest's output clean
        pass

    def reply(self, status, payload=None, content_type="application/json"):
        body = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        data = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        API.log.append((self.command, self.path, self.headers.get("Content-Type"), data))
        if self.headers.get("Content-Type") == "application/x-www-form-urlencoded":
            fields = urllib.parse.parse_qs(data)
            return {"id": int(fields["user[id]"][0]) if "user[id]" in fields else None, "name": fields["user[name]"][0]}
        return json.loads(data)["user"]

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        parts = url.path.strip("/").split("/")[1:]  # after "api"
        if parts == ["users"]:
            self.reply(200, {"users": sorted(API.users.values(), key=lambda u: u["id"])})
        elif len(parts) == 2 and parts[0] == "users":
            user = API.users.get(int(parts[1]))
            self.reply(200, {"user": user}) if user else self.reply(404, {"errors": [{"message": "No such user."}]})
        elif parts == ["articles"]:
            self.reply(200, {"articles": [{"id": 1, "title": "Hello", "author_id": 1,
                                           "comments": [{"id": 10, "body": "First"}, {"id": 11, "body": "Second"}]}]})
        elif parts == ["paginate"]:
            query = urllib.parse.parse_qs(url.query)
            page, per_page = int(query["page"][0]), int(query["per_page"][0])
            people = [{"id": 100 + i, "name": f"P{i}"} for i in range(5)]
            entries = people[(page - 1) * per_page:page * per_page]
            self.reply(200 if entries else 422,
                       {"entries": entries, "total_entries": len(people), "per_page": per_page, "current_page": page}
                       if entries else {"errors": [{"message": "Invalid page number."}]})
        else:
            self.reply(404, {"errors": [{"message": "Not found."}]})

    def do_POST(self):
        user = self.body()
        user["id"] = user.get("id") or max(API.users, default=0) + 1
        API.users[user["id"]] = user
        self.reply(201, {"user": user})

    def do_PUT(self):
        user = self.body()
        API.users[user["id"]] = user
        self.reply(200, {"user": user})

    def do_DELETE(self):
        key = int(self.path.rstrip("/").split("/")[-1])
        if API.delete_reply is not None:  # a canned answer (P8)
            status, payload = API.delete_reply
            self.reply(status, payload)
            return
        self.reply(204) if API.users.pop(key, None) else self.reply(404, {"errors": [{"message": "No such user."}]})


@pytest.fixture
def server():
    API.users = {1: {"id": 1, "name": "Ada"}, 2: {"id": 2, "name": "Grace"}}
    API.log = []
    API.delete_reply = None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), API)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/api/"
    httpd.shutdown()
    httpd.server_close()


def test_object_manager_round_trip(server):
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        users = manager.get_objects("users")  # GET a list
        assert [(u["id"], u["name"]) for u in users] == [(1, "Ada"), (2, "Grace")]
        API.users[1]["name"] = "Ada Lovelace"
        assert manager.get_object(users[0]) == [users[0]] and users[0]["name"] == "Ada Lovelace"  # GET by route
        articles = manager.get_objects("articles")  # nested comments, author by identity
        assert articles[0].related("author") == users[0]
        assert [c["body"] for c in articles[0].related("comments")] == ["First", "Second"]

        carl = ctx.create("User", id=3, name="Carl")
        assert manager.post_object(carl) == [carl] and API.users[3]["name"] == "Carl"  # POST JSON
        assert API.log[-1][2] == "application/json" and json.loads(API.log[-1][3]) == {"user": {"id": 3, "name": "Carl"}}
        dana = ctx.create("User", id=4, name="Dana Scully")
        manager.post_object(dana, form=True)  # POST form
        assert API.log[-1][2] == "application/x-www-form-urlencoded" and API.log[-1][3] == "user[id]=4&user[name]=Dana%20Scully"
        assert API.users[4]["name"] == "Dana Scully"

        carl["name"] = "Carl Sagan"
        manager.put_object(carl)  # PUT
        assert API.users[3]["name"] == "Carl Sagan" and API.log[-1][1] == "/api/users/3"

        manager.delete_object(dana)  # DELETE 204: deleted locally too
        assert 4 not in API.users and not dana.is_live() and ctx.count("User") == 3

        with pytest.raises(mapping.ResponseError) as caught:  # an error response
            manager.get_objects("users/99")
        assert str(caught.value) == f"GET {server}users/99 answered 404: No such user." and caught.value.status == 404
        assert (caught.value.method, caught.value.url) == ("GET", f"{server}users/99")
        assert ctx.count("User") == 3

        ghost = ctx.create("User", id=77, name="Ghost")
        manager.delete_object(ghost)  # 404 on DELETE: deleted locally all the same
        assert not ghost.is_live()


def test_paginated_list(server):
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        seen = []
        page = 1
        while True:
            try:
                entries = manager.get_objects("paginate", {"per_page": 2, "page": page})
            except mapping.ResponseError as error:
                assert str(error).endswith(" answered 422: Invalid page number.") and str(error).startswith("GET http")
                break
            seen += [user["name"] for user in entries]
            page += 1
        assert seen == ["P0", "P1", "P2", "P3", "P4"] and page == 4
        assert ctx.count("User") == 5


def test_paginator_iterates_pages_O3_O4(server):
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        pages = list(manager.paginate("paginate?per_page=:perPage&page=:currentPage", per_page=2))
        assert [[user["name"] for user in page] for page in pages] == [["P0", "P1"], ["P2", "P3"], ["P4"]]
        paginator = mapping.Paginator(ctx, "paginate?per_page=:perPage&page=:currentPage", 2)
        assert paginator.path(1) == "paginate?per_page=2&page=1" and paginator.current_page is None
        with pytest.raises(mapping.MisuseError):
            paginator.has_next_page
        paginator.update(2, {"per_page": 2, "total_entries": 5, "current_page": 2})
        assert (paginator.page_count, paginator.object_count, paginator.offset) == (3, 5, 2)
        assert paginator.has_next_page and paginator.has_previous_page


@pytest.mark.parametrize("status, payload", [(204, None), (200, None), (200, {}), (404, None), (410, {})])
def test_delete_succeeds_locally_for_empty_and_gone_answers_P8(server, status, payload):
    """RestKit deletes the object locally for a DELETE answered 2xx with nothing to map (no body, a
    zero-length body, `{}`) and for 404/410 (already gone on the server)."""
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        API.delete_reply = (status, payload)
        user = ctx.create("User", id=1, name="Ada")
        manager.delete_object(user)
        assert not user.is_live() and ctx.count("User") == 0


def test_delete_keeps_the_object_when_the_server_fails(server):
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        API.delete_reply = (500, {"errors": [{"message": "Try again later."}]})
        user = ctx.create("User", id=1, name="Ada")
        with pytest.raises(mapping.ResponseError) as caught:
            manager.delete_object(user)
        assert str(caught.value) == f"DELETE {server}users/1 answered 500: Try again later." and caught.value.status == 500
        assert user.is_live() and ctx.count("User") == 1


def test_get_deletes_orphans_in_scope(server):
    """A GET with `orphans=` deletes the local objects of the scope the response did not include;
    objects outside the predicate stay, and an error response deletes nothing."""
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        stale = ctx.create("User", id=9, name="Stale")
        local = ctx.create("User", id=10, name="Local draft")
        users = manager.get_objects("users", orphans=("User", "name != 'Local draft'"))
        assert sorted(u["id"] for u in users) == [1, 2]
        assert not stale.is_live() and local.is_live() and ctx.count("User") == 3
        with pytest.raises(mapping.ResponseError):
            manager.get_objects("users/99", orphans=("User", None))
        assert ctx.count("User") == 3
        manager.get_objects("users", orphans=("User", None))
        assert not local.is_live() and ctx.count("User") == 2


def test_post_maps_the_answer_into_the_posted_object(server):
    """RestKit's target object: a user created here without an id is POSTed; the server's answer
    (with the id it assigned) is mapped into that same object — no duplicate is created."""
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        manager.get_objects("users")
        eve = ctx.create("User", name="Eve")
        assert eve["id"] is None
        assert manager.post_object(eve) == [eve]
        assert eve["id"] == 3 and API.users[3]["name"] == "Eve"
        assert ctx.count("User") == 3 and ctx.get("User", 3) == eve


def test_target_whose_answer_names_another_object_changes_nothing(server):
    with mapping.Context(SPEC) as ctx:
        ada = ctx.import_json("user", {"id": 1, "name": "Ada"})[0]
        draft = ctx.create("User", name="Draft")
        answer = {"user": {"id": 1, "name": "Draft"}}  # the server says: that is user 1
        with pytest.raises(mapping.ConstraintError):
            ctx.map_response("POST", server + "users", 201, answer, base_url=server, target=draft)
        assert draft["id"] is None and draft["name"] == "Draft" and ada["name"] == "Ada"
        assert ctx.get("User", 1) == ada
        # An array at the top is not mapped into the target: objects by identity, as without one.
        listed = ctx.map_response("GET", server + "users", 200, {"users": [{"id": 5, "name": "Five"}]},
                                  base_url=server, target=draft)
        assert listed != [draft] and listed[0]["id"] == 5 and draft["id"] is None


def test_a_transport_failure_is_a_library_error_naming_the_request():
    """A refused connection is a mapping.TransportError (a ResponseError and an OSError) with the method
    and URL, not a bare urllib exception; the graph is untouched."""
    import socket
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(f"http://127.0.0.1:{port}/api/", ctx)
        with pytest.raises(mapping.TransportError) as caught:
            manager.get_objects("users")
        error = caught.value
        assert isinstance(error, mapping.ResponseError) and isinstance(error, OSError)
        assert (error.method, error.url, error.status) == ("GET", f"http://127.0.0.1:{port}/api/users", None)
        assert str(error).startswith(f"GET http://127.0.0.1:{port}/api/users failed: ")
        assert ctx.count("User") == 0
