"""Path patterns and query strings through the binding."""
import pytest

import mapping


def test_match_and_interpolate_A1_A7_A12():
    users = mapping.PathPattern("/this/is/:controllerName/:entityName")
    assert users.match("/this/is/my/backend?foo=bar&this=that", query=True) == {
        "controllerName": "my", "entityName": "backend", "foo": "bar", "this": "that"}
    assert users.match("/this/is/my/backend?foo=bar") == {"controllerName": "my", "entityName": "backend"}
    assert mapping.PathPattern("/api/:version/organizations").match("/api/v1/organizations/") is None
    people = mapping.PathPattern("/people/:group/:name?password=:password")
    values = {"password": "JUICE|BOX&121", "name": "Joe Bob Briggs", "group": 15}
    assert people.interpolate(values, escape=True) == "/people/15/Joe%20Bob%20Briggs?password=JUICE%7CBOX%26121"
    assert people.interpolate(values) == "/people/15/Joe Bob Briggs?password=JUICE|BOX&121"
    assert mapping.PathPattern(r"/directory/:filename\.json").interpolate({"filename": "Resources"}) == "/directory/Resources.json"
    with pytest.raises(mapping.MisuseError):
        mapping.PathPattern(":dilly:isacat")


def test_interpolate_from_objects_and_decode_queries_N17():
    spec = {"entities": {"User": {"attributes": {"userID": "integer"}}},
            "mappings": {"user": {"entity": "User", "attributes": {"userID": "id"}}}}
    with mapping.Context(spec) as ctx:
        user = ctx.import_json("user", {"id": 12345})[0]
        assert mapping.PathPattern("/users/:userID").interpolate(user) == "/users/12345"
    assert mapping.decode_query("this=that&this=theOther&x=%2F") == {"this": ["that", "theOther"], "x": "/"}


def test_routes_and_url_resolution_C2_C3_C15():
    spec = {"entities": {"User": {"attributes": {"userID": "integer"}}, "Admin": {"parent": "User"}},
            "mappings": {"admin": {"entity": "Admin", "attributes": {"userID": "id"}}},
            "routes": [{"entity": "User", "method": "ANY", "path": "/users/:userID"},
                       {"entity": "Admin", "method": "POST", "path": "/admins"},
                       {"name": "airlines_list", "method": "GET", "path": "/airlines.json"}]}
    with mapping.Context(spec) as ctx:
        admin = ctx.import_json("admin", {"id": 12345})[0]
        assert ctx.route_path(admin, "POST") == "/admins"
        assert ctx.route_path(admin, "GET") == "/users/12345"  # the parent entity's ANY
        assert ctx.route_path(name="airlines_list") == "/airlines.json"
        with pytest.raises(mapping.NotFoundError):
            ctx.route_path(name="nope")
    assert mapping.resolve_url("http://restkit.org/api/v1/", "users/1") == "http://restkit.org/api/v1/users/1"
    assert mapping.resolve_url("http://restkit.org/api/v1/", "/users/1") == "http://restkit.org/users/1"
    spec["routes"].append({"name": "x", "method": "ANY", "path": "/x"})
    with pytest.raises(mapping.SpecError) as caught:
        mapping.Context(spec)
    assert caught.value.path == "$.routes[3].method"


def test_map_response_with_descriptors_and_errors():
    spec = {"entities": {"User": {"attributes": {"code": "string", "name": "string", "agent": "string"}, "identification": "code"}},
            "mappings": {"user": {"entity": "User", "attributes": {"code": "code", "name": "name",
                                                                  "agent": "@metadata.HTTP.request.headers.User-Agent"}}},
            "responseDescriptors": [{"mapping": "user", "method": "GET", "pathPattern": "/users/:code", "keyPath": "user"},
                                    {"errorMessage": "message", "keyPath": "errors"}]}
    with mapping.Context(spec) as ctx:
        base = "http://127.0.0.1:9"
        users = ctx.map_response("GET", base + "/users/u1", 200, {"user": {"code": "u1", "name": "Ada"}},
                                 headers={"User-Agent": "test"}, base_url=base)
        assert [(u["code"], u["agent"]) for u in users] == [("u1", "test")]
        with pytest.raises(mapping.ResponseError) as caught:
            ctx.map_response("GET", base + "/users/u2", 404, {"errors": [{"message": "No such user."}]}, base_url=base)
        assert str(caught.value) == "GET http://127.0.0.1:9/users/u2 answered 404: No such user."
        with pytest.raises(mapping.UnmappableError):
            ctx.map_response("POST", base + "/users/u1", 200, {"user": {"code": "u1"}}, base_url=base)
        assert ctx.count("User") == 1
