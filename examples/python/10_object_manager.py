"""10 — The object manager against a small API this program serves itself on 127.0.0.1: a new user sent
with an avatar in a multipart form (the answer maps into it), a batch of requests at once with
progress (a 404 among them), and a batch whose progress callback cancels what is left.
Introduces: ObjectManager.multipart_request, request, send, run_batch, cancel; Attachment,
CancelledError."""
import email.parser
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import mapping

SPEC = {
    "entities": {"User": {"attributes": {"id": "integer", "name": "string", "avatar_size": "integer"}}},
    "mappings": {"user": {"entity": "User", "attributes": {"id": "id", "name": "name", "avatar_size": "avatar_size"}},
                 "new_user": {"entity": "User", "attributes": {"name": "name"}}},
    "routes": [{"entity": "User", "method": "POST", "path": "users"},
               {"entity": "User", "method": "GET", "path": "users/:id"}],
    "responseDescriptors": [{"mapping": "user", "method": "POST", "pathPattern": "users", "keyPath": "user"},
                            {"mapping": "user", "method": "GET", "pathPattern": "users/:id", "keyPath": "user"},
                            {"errorMessage": "message", "keyPath": "errors"}],
    "requestDescriptors": [{"entity": "User", "method": "POST", "mapping": "new_user", "rootKeyPath": "user"}],
}
USERS = {1: {"id": 1, "name": "Grace"}, 2: {"id": 2, "name": "Linus"}}


class API(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, payload):
        body = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except ConnectionError:  # the client cancelled the request and hung up
            pass

    def do_GET(self):
        user = USERS.get(int(self.path.rsplit("/", 1)[1]))
        self.reply(200, {"user": user}) if user else self.reply(404, {"errors": [{"message": "No such user."}]})

    def do_POST(self):  # a multipart form, read with the standard library's parser
        body = self.rfile.read(int(self.headers["Content-Length"]))
        form = email.parser.BytesParser().parsebytes(
            f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + body)
        parts = {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
                 for part in form.get_payload()}
        user = {"id": len(USERS) + 1, "name": parts["user[name]"].decode(), "avatar_size": len(parts["avatar"])}
        USERS[user["id"]] = user
        self.reply(201, {"user": user})


server = ThreadingHTTPServer(("127.0.0.1", 0), API)
threading.Thread(target=server.serve_forever, daemon=True).start()
base_url = f"http://127.0.0.1:{server.server_address[1]}/api/"

with mapping.Context(SPEC) as ctx:
    manager = mapping.ObjectManager(base_url, ctx)

    ada = ctx.create("User", name="Ada")
    avatar = mapping.Attachment(name="avatar", data=b"\x89PNG\r\n\x1a\n...", filename="ada.png",
                                content_type="image/png")
    request = manager.multipart_request(ada, "POST", attachments=[avatar])
    manager.send(request)  # the answer maps into ada: she learns her id
    print(f"uploaded: {ada!r} with an avatar of {ada['avatar_size']} bytes")

    requests = [manager.request("GET", f"users/{n}") for n in (1, 2, 9)]
    outcomes = manager.run_batch(requests, max_concurrent=3,
                                 progress=lambda done, total: print(f"  {done} of {total} done"))
    for request, outcome in zip(requests, outcomes):
        if isinstance(outcome, Exception):
            print(f"{request.url}: {type(outcome).__name__}: {outcome}")
        else:
            print(f"{request.url}: {[user['name'] for user in outcome]}")

    def stop_after_the_first(done, total):
        if done == 1:
            print(f"  cancelled {manager.cancel('GET', 'users/:id')} of the {total - done} left")

    outcomes = manager.run_batch([manager.request("GET", f"users/{n}") for n in (1, 2, 3)],
                                 max_concurrent=1, progress=stop_after_the_first)
    print([type(outcome).__name__ for outcome in outcomes])

server.shutdown()
