"""The Python ObjectManager against a real HTTP server on 127.0.0.1 (the standard library's, in a
thread, on a free port): users, articles with comments, a paginated list; GET, POST (JSON, form and
multipart), PUT, DELETE and an error response, asserting the graph after each step; batches of
requests at once, and cancelling them."""
import email.parser
import json
import threading
import time
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
        {"mapping": "user", "method": "GET", "pathPattern": "slow/:id", "keyPath": "user"},
        {"mapping": "user", "method": "GET", "pathPattern": "hold/:id", "keyPath": "user"},
        {"errorMessage": "message", "keyPath": "errors"},
    ],
    "requestDescriptors": [{"entity": "User", "method": "ANY", "mapping": "user", "rootKeyPath": "user"}],
}


def parse_multipart(content_type, body):
    """(name, filename or None, Content-Type or None, bytes) of each part, as the standard library's
    email parser reads the body; a body it finds defects in fails the test."""
    message = email.parser.BytesParser().parsebytes(
        b"Content-Type: " + content_type.encode("ascii") + b"\r\n\r\n" + body)
    assert message.is_multipart() and message.defects == [], message.defects
    parts = message.get_payload()
    assert all(part.defects == [] for part in parts), [part.defects for part in parts]
    return [(part.get_param("name", header="content-disposition"), part.get_filename(),
             part["Content-Type"] and str(part["Content-Type"]), part.get_payload(decode=True)) for part in parts]


class API(BaseHTTPRequestHandler):
    users = {}
    log = []
    gets = []  # the path of every GET, in the order they came
    parts = None  # the last multipart body, parsed
    delete_reply = None  # (status, payload) for DELETE, or None for the real behaviour
    lock = threading.Lock()
    active = peak = 0  # GET slow/:id requests being answered at once, and the most there were
    held = threading.Event()  # a GET hold/:id came and waits for `release`
    release = threading.Event()

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
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        kind = self.headers.get("Content-Type")
        if kind.startswith("multipart/form-data"):
            API.log.append((self.command, self.path, kind, raw))
            API.parts = parse_multipart(kind, raw)
            fields = {name: data.decode() for name, filename, _, data in API.parts if filename is None}
            return {"id": int(fields["user[id]"]) if fields.get("user[id]") else None, "name": fields["user[name]"]}
        data = raw.decode()
        API.log.append((self.command, self.path, kind, data))
        if kind == "application/x-www-form-urlencoded":
            fields = urllib.parse.parse_qs(data)
            return {"id": int(fields["user[id]"][0]) if "user[id]" in fields else None, "name": fields["user[name]"][0]}
        return json.loads(data)["user"]

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        parts = url.path.strip("/").split("/")[1:]  # after "api"
        with API.lock:
            API.gets.append(url.path)
        if len(parts) == 2 and parts[0] == "slow":  # takes 0.25 s, counting the requests it answers at once
            with API.lock:
                API.active += 1
                API.peak = max(API.peak, API.active)
            time.sleep(0.25)
            with API.lock:
                API.active -= 1
            self.reply(200, {"user": {"id": int(parts[1]), "name": f"Slow {parts[1]}"}})
        elif len(parts) == 2 and parts[0] == "hold":  # answers only once the test releases it
            API.held.set()
            API.release.wait(10)
            try:
                self.reply(200, {"user": {"id": int(parts[1]), "name": f"Held {parts[1]}"}})
            except OSError:  # the client cut the connection: what cancel does
                pass
        elif parts == ["users"]:
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
    API.gets, API.parts, API.active, API.peak = [], None, 0, 0
    API.held.clear()
    API.release.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), API)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/api/"
    API.release.set()
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


# -- multipart forms (RKObjectManager's multipartFormRequestWithObject:…) ---------------------------

AVATAR = bytes(range(256)) + b"\r\n--\r\n\r\n--mapping-\x00\r\n"  # every byte, line breaks, dashes


def test_multipart_request_sends_the_objects_parameters_and_files(server):
    """The object's parameters (its request descriptor, as form encoding names them) then the extra
    params, then the files: the standard library's parser reads each back byte for byte, and the
    answer maps into the object sent."""
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        manager.get_objects("users")
        eve = ctx.create("User", name="Eve \"E\" Ünal & co=1+1")
        notes = "line one\r\nline two\n\u00e9".encode()
        request = manager.multipart_request(
            eve, "POST", attachments=[
                mapping.Attachment(name="avatar", data=AVATAR, filename="a.png", content_type="image/png"),
                mapping.Attachment(name="notes", data=notes, filename='my "best" \\ notes.txt',
                                   content_type="text/plain; charset=utf-8")],
            params={"caption": "Me, today", "tags": ["a", "b"], "private": False, "album": {"id": 7}})
        assert (request.method, request.url, request.target) == ("POST", server + "users", eve)
        assert request.content_type.startswith("multipart/form-data; boundary=")
        assert manager.send(request) == [eve]  # the answer maps into the same object
        assert eve["id"] == 3 and ctx.count("User") == 3 and ctx.get("User", 3) == eve
        assert API.users[3]["name"] == "Eve \"E\" Ünal & co=1+1"

        method, path, content_type, body = API.log[-1]
        assert (method, path, content_type) == ("POST", "/api/users", request.content_type)
        assert API.parts == [
            ("user[id]", None, None, b""),  # null: an empty field, as AFNetworking sends NSNull
            ("user[name]", None, None, "Eve \"E\" Ünal & co=1+1".encode()),
            ("album[id]", None, None, b"7"),  # keys sorted, nested dicts flattened as the engine's forms are
            ("caption", None, None, b"Me, today"),
            ("private", None, None, b"false"),
            ("tags[]", None, None, b"a"),
            ("tags[]", None, None, b"b"),
            ("avatar", "a.png", "image/png", AVATAR),
            ("notes", 'my "best" \\ notes.txt', "text/plain; charset=utf-8", notes),
        ]
        boundary = request.content_type.split("boundary=")[1]
        assert body.startswith(f"--{boundary}\r\n".encode()) and body.endswith(f"\r\n--{boundary}--\r\n".encode())
        assert body.count(boundary.encode()) == len(API.parts) + 1
        assert b'Content-Disposition: form-data; name="notes"; filename="my \\"best\\" \\\\ notes.txt"\r\n' \
               b"Content-Type: text/plain; charset=utf-8\r\n\r\n" in body


def test_multipart_params_replace_the_objects_fields_and_a_path_may_stand_alone(server):
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        carl = ctx.create("User", id=5, name="Carl")
        request = manager.multipart_request(carl, "PUT", params={"user": {"name": "Carl Sagan"}},
                                            attachments=[mapping.Attachment("avatar", b"\x89PNG", "c.png")])
        assert request.url == server + "users/5"  # the PUT route
        assert manager.send(request) == [carl] and carl["name"] == "Carl Sagan"
        assert API.parts == [("user[id]", None, None, b"5"), ("user[name]", None, None, b"Carl Sagan"),
                             ("avatar", "c.png", "application/octet-stream", b"\x89PNG")]
        bare = manager.multipart_request(None, "POST", "users", params={"user": {"name": "Dana"}})
        dana = manager.send(bare)[0]
        assert API.parts == [("user[name]", None, None, b"Dana")] and dana["id"] == 6 and dana["name"] == "Dana"


def test_multipart_refuses_what_it_cannot_send(server):
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        eve = ctx.create("User", id=3, name="Eve")
        with pytest.raises(mapping.MisuseError, match="filename 'a\\\\r\\\\nb.png' holds the control character"):
            manager.multipart_request(eve, attachments=[mapping.Attachment("avatar", b"x", "a\r\nb.png")])
        with pytest.raises(mapping.MisuseError, match=r"attachments takes a list: attachments=\[Attachment"):
            manager.multipart_request(eve, attachments=mapping.Attachment("avatar", b"x", "a.png"))
        with pytest.raises(mapping.MisuseError, match="data must be bytes, not str"):
            mapping.Attachment("avatar", "text", "a.txt")
        with pytest.raises(mapping.MisuseError, match="without an object needs a path"):
            manager.multipart_request(None)
        with pytest.raises(mapping.MisuseError, match="multipart params must be a dict of field names, not list"):
            manager.multipart_request(eve, params=[1, 2])
        with pytest.raises(mapping.MisuseError, match="Attachment name must be a str, not int"):
            mapping.Attachment(7, b"x", "a.png")
        with pytest.raises(mapping.MisuseError, match="holds a control character"):
            manager.send(manager.multipart_request(eve, attachments=[mapping.Attachment("a", b"x", "a.png", "image/\x7fpng")]))
        assert API.log == []
        with pytest.raises(mapping.MisuseError, match="api/users: not a URL this manager can open"):
            mapping.ObjectManager("api/", ctx).get_objects("users")
        with pytest.raises(mapping.TransportError, match="unknown url type: nowhere"):
            mapping.ObjectManager("nowhere:/api/", ctx).get_objects("users")


def test_the_boundary_occurs_in_no_part():
    from mapping import multipart
    tokens = iter(["0001", "0002"])
    body, content_type = multipart.encode([("a", b"x--mapping-0001y")], [], make=lambda: next(tokens))
    assert content_type == "multipart/form-data; boundary=mapping-0002"
    assert body == (b'--mapping-0002\r\nContent-Disposition: form-data; name="a"\r\n\r\n'
                    b"x--mapping-0001y\r\n--mapping-0002--\r\n")
    with pytest.raises(mapping.MisuseError, match="no multipart boundary"):
        multipart.encode([("a", b"mapping-0")], [], make=lambda: "0")


# -- batches (RKObjectManager's enqueueBatchOfObjectRequestOperations:progress:completion:) ----------

def closed_port():
    import socket
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_batch_gives_one_outcome_per_request_in_order(server):
    """A 404, a refused connection and a mapped list side by side: each its own outcome, in the
    requests' order, none raised; progress once per request on the calling thread, done 1…total."""
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        elsewhere = f"http://127.0.0.1:{closed_port()}/api/users"
        carl = ctx.create("User", name="Carl")
        requests = [manager.request("GET", "slow/1"), manager.request("GET", "users/99"),
                    manager.request("GET", elsewhere), manager.object_request(carl, "POST"),
                    manager.request("GET", "paginate", {"per_page": 2, "page": 1}), manager.request("get", "slow/2")]
        calls = []
        outcomes = manager.run_batch(requests, max_concurrent=3,
                                     progress=lambda done, total: calls.append((done, total, threading.get_ident())))
        assert [type(outcome).__name__ for outcome in outcomes] == \
            ["ObjectList", "ResponseError", "TransportError", "ObjectList", "ObjectList", "ObjectList"]
        assert outcomes[0] == [ctx.get("User", 1)] and outcomes[0][0]["name"] == "Slow 1"
        assert (outcomes[1].status, outcomes[1].url) == (404, server + "users/99")
        assert str(outcomes[1]) == f"GET {server}users/99 answered 404: No such user."
        assert (outcomes[2].method, outcomes[2].url, outcomes[2].status) == ("GET", elsewhere, None)
        assert outcomes[3] == [carl] and carl["id"] == 3 and API.users[3]["name"] == "Carl"
        assert [user["id"] for user in outcomes[4]] == [100, 101]
        assert outcomes[5] == [ctx.get("User", 2)] and outcomes[5][0]["name"] == "Slow 2"
        assert [(done, total) for done, total, _ in calls] == [(1, 6), (2, 6), (3, 6), (4, 6), (5, 6), (6, 6)]
        assert {thread for _, _, thread in calls} == {threading.get_ident()}
        assert manager.cancel() == 0  # nothing left outstanding


def test_a_batch_runs_its_requests_at_once_up_to_the_limit(server):
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        requests = [manager.request("GET", f"slow/{n}") for n in range(1, 7)]
        outcomes = manager.run_batch(requests, max_concurrent=3)
        assert [outcome[0]["id"] for outcome in outcomes] == list(range(1, 7))
        assert API.peak == 3  # the server answered three at once, never more
        API.peak = 0
        assert len(manager.run_batch(requests[:4], max_concurrent=1)) == 4 and API.peak == 1
        assert manager.run_batch([], progress=lambda done, total: pytest.fail("no progress for no requests")) == []
        with pytest.raises(mapping.MisuseError, match="max_concurrent must be a whole number of 1 or more, not 0"):
            manager.run_batch(requests, max_concurrent=0)
        with pytest.raises(mapping.MisuseError, match="run_batch takes Requests .* not str"):
            manager.run_batch(["users/1"])
        assert manager.cancel() == 0


def test_a_failing_progress_stops_the_batch(server):
    """An exception of the progress callback cancels what has not finished and propagates."""
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        requests = [manager.request("GET", "users/1"), manager.request("GET", "hold/5"), manager.request("GET", "users/2")]

        def progress(done, total):
            API.held.wait(5)  # hold/5 is on its way
            raise KeyError("stop")

        started = time.monotonic()
        with pytest.raises(KeyError):
            manager.run_batch(requests, max_concurrent=1, progress=progress)
        assert time.monotonic() - started < 5 and not API.release.is_set()  # hold/5 was cut off, not waited for
        assert "/api/users/2" not in API.gets and ctx.get("User", 5) is None and manager.cancel() == 0


# -- cancelling (RKObjectManager's cancelAllObjectRequestOperationsWithMethod:matchingPathPattern:) ----

def cancel_when_held(manager, method, pattern, cancelled, release=False):
    """On another thread: once the server holds a request, cancel by method and pattern (and then
    let the server answer it, with `release`)."""
    def run():
        assert API.held.wait(5)
        cancelled.append(manager.cancel(method, pattern))
        if release:
            API.release.set()
    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_cancel_drops_queued_requests_that_match(server):
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        requests = [manager.request("GET", "hold/5"), manager.request("GET", "users/1"),
                    manager.request("DELETE", "users/2"), manager.request("GET", "users/2?full=1"),
                    manager.request("GET", "articles")]
        cancelled = []

        def progress(done, total):
            if done == 1:
                assert cancelled == [2]  # GET users/1 and GET users/2?full=1, still queued
        canceller = cancel_when_held(manager, "GET", "users/:id", cancelled, release=True)
        outcomes = manager.run_batch(requests, max_concurrent=1, progress=progress)
        canceller.join()
        assert [type(outcome).__name__ for outcome in outcomes] == \
            ["ObjectList", "CancelledError", "ObjectList", "CancelledError", "ObjectList"]
        assert outcomes[0][0]["name"] == "Held 5"
        assert isinstance(outcomes[1], mapping.ResponseError) and not isinstance(outcomes[1], OSError)
        assert (outcomes[1].method, outcomes[1].url, outcomes[1].status) == ("GET", server + "users/1", None)
        assert str(outcomes[3]) == f"GET {server}users/2?full=1 was cancelled"
        assert API.gets == ["/api/hold/5", "/api/articles"]  # the cancelled ones were never sent
        assert 2 not in API.users  # the DELETE did not match the method


def test_cancel_cuts_off_a_request_waiting_for_its_answer(server):
    """A request already sent: the connection is shut, the call raises CancelledError at once (the
    server still holds it), and nothing of any answer is mapped."""
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        cancelled = []
        canceller = cancel_when_held(manager, "GET", "hold/:id", cancelled)
        started = time.monotonic()
        with pytest.raises(mapping.CancelledError) as caught:
            manager.get_objects("hold/5")
        canceller.join()
        assert time.monotonic() - started < 5 and not API.release.is_set()
        assert cancelled == [1] and caught.value.url == server + "hold/5"
        assert ctx.get("User", 5) is None and manager.cancel() == 0

        # In a batch: the held one ends as CancelledError, the others are mapped.
        API.held.clear()
        cancelled.clear()
        canceller = cancel_when_held(manager, None, "hold/:id", cancelled)
        outcomes = manager.run_batch([manager.request("GET", "users/1"), manager.request("GET", "hold/6"),
                                      manager.request("GET", "slow/2")], max_concurrent=3)
        canceller.join()
        assert cancelled == [1] and [type(outcome).__name__ for outcome in outcomes] == \
            ["ObjectList", "CancelledError", "ObjectList"]
        assert ctx.get("User", 6) is None and ctx.get("User", 2)["name"] == "Slow 2"


def test_cancel_matches_method_and_pattern_only(server):
    with mapping.Context(SPEC) as ctx:
        manager = mapping.ObjectManager(server, ctx)
        cancelled = []
        canceller = cancel_when_held(manager, "POST", "hold/:id", cancelled, release=True)
        assert manager.get_objects("hold/7")[0]["name"] == "Held 7"  # a GET: not cancelled by a POST
        canceller.join()
        assert cancelled == [0]
        with pytest.raises(mapping.MisuseError, match="write 'users/:id'"):
            manager.cancel("GET", "/users/:id")
        with pytest.raises(mapping.MisuseError):
            manager.cancel("GET", "users/:a:b")  # a malformed pattern


def test_the_docs_example_is_the_example_program_and_prints_what_they_say():
    """docs/python.md shows the client half of examples/python/10_object_manager.py and its output:
    the block is in the program as written, and the program, run, prints that output."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[3]
    program = root / "examples" / "python" / "10_object_manager.py"
    docs = (root / "docs" / "python.md").read_text()
    section = docs[docs.index("### Multipart forms, batches and cancelling"):]
    code, output = re.findall(r"^```(?:python)?\n(.*?)^```$", section, re.M | re.S)[:2]
    assert "multipart_request" in code and code in program.read_text()
    env = dict(os.environ, PYTHONPATH=str(root / "bindings" / "python" / "src"))
    ran = subprocess.run([sys.executable, str(program), str(root / "examples" / "data")], cwd=root, env=env,
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and ran.stderr == "", ran.stderr
    assert re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:41000", ran.stdout) == output


def test_a_request_cancelled_after_its_answer_came_maps_nothing(server):
    """The answer read but not yet mapped: cancel() still counts, and the mapping half refuses it;
    once mapping has begun, cancel() leaves the request alone."""
    import urllib.request
    from mapping.transport import Operation
    operation = Operation("GET", server + "users/1")
    status, body, kind = operation.exchange(urllib.request.Request(server + "users/1"), timeout=5)
    assert (status, json.loads(body), kind) == (200, {"user": {"id": 1, "name": "Ada"}}, "application/json")
    assert operation.cancel() is True and operation.cancel() is False
    with pytest.raises(mapping.CancelledError):
        operation.claim()
    with pytest.raises(mapping.CancelledError):  # and it is not sent again
        operation.exchange(urllib.request.Request(server + "users/1"), timeout=5)
    assert API.gets == ["/api/users/1"]
    mapped = Operation("GET", server + "users/1")
    mapped.exchange(urllib.request.Request(server + "users/1"), timeout=5)
    mapped.claim()
    assert mapped.cancel() is False and not mapped.cancelled
