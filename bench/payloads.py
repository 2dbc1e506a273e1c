"""Import costs on real API payloads (in the folder $MAPPING_BENCH_DATA names): twitter.json, citm_catalog.json,
gsoc-2018.json, random.json, update-center.json and github_events.json, each with its spec in
bench/specs/. Interleaved rounds in one process, medians; ratios are to jansson's bare parse of the
same bytes. Every way does the same job — the objects each spec describes, uniqued by identity, with
their relationships and inverses, dates parsed — and the script first checks that it does: each
spec is imported with both parsers and the graph (counts, every attribute and relationship of every
identified object) is compared with the hand-written baseline's, fresh and after a re-import.
  - jansson parse only: json_loadb + json_delete through ctypes (one call each, so C speed)
  - libmapping cold import, jansson: a new context, one mapping_context_import (mapping_context_import_with for the
    payloads that need several root mappings) through ctypes
  - libmapping re-import, jansson: the same payload again into that context (every object updated)
  - the same two with the simdjson parser (mapping_context_set_parser(ctx, 2))
  - Python json + dict identity maps, GC paused: json.loads, then hand-written code doing what the
    spec says — a dict per entity from identity to object (a dict that hashes by identity), find or
    create, set attributes (dates parsed as the spec's transformers do), set relationships keeping
    inverses in step (sets for to-many inverses, lists for ordered ones); cold, then re-import
  - orjson + dict identity maps, GC paused: the same code fed by orjson.loads
  - msgspec + dict identity maps, GC paused: the same code fed by msgspec.json.decode without a
    type (plain dicts and lists, as orjson gives). Typed Structs would check the shapes too, but the
    walking code would have to be written again per payload; untyped decoding keeps the job identical
    and makes the row a parser-for-parser comparison with the orjson one.
The "objects" column is the number of objects in the graph after that way's import.
Writes a Markdown report on stdout; exits non-zero with a message on stderr if a payload is missing
from that folder, a spec does not load, a payload does not import, or a graph differs from the
baseline's. Without MAPPING_BENCH_DATA it prints one line saying it skipped and exits 0."""
import collections
import ctypes
import datetime
import email.utils
import gc
import json
import os
import platform
import statistics
import sys
import time

try:
    import orjson
except ImportError:  # needed only when there are payloads to measure: main() says so
    orjson = None
try:
    import msgspec
except ImportError:  # the same
    msgspec = None

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python", "src"))
# The public JSON benchmark payloads are not kept in the repository (several MB); point
# MAPPING_BENCH_DATA at a folder that holds them (github_events.json is also in examples/data).
# Unset or empty, this benchmark is skipped.
DATA = os.environ.get("MAPPING_BENCH_DATA", "")
SPECS = os.path.join(HERE, "specs")
ROUNDS = 25
SIMDJSON = 2


def fail(message):
    print(f"payloads.py: {message}", file=sys.stderr)
    sys.exit(1)


def load_binding(attempts=5):
    """Imports the binding, retrying for a while: the library may be being rebuilt under us."""
    for attempt in range(attempts):
        try:
            import mapping
            from mapping import _ffi
            from mapping.errors import error_from_status
            return mapping, _ffi, error_from_status
        except (ImportError, OSError) as error:
            if attempt == attempts - 1:
                fail(f"cannot load libmapping: {error}")
            for name in [name for name in sys.modules if name == "mapping" or name.startswith("mapping.")]:
                del sys.modules[name]
            time.sleep(2)


mapping, _ffi, error_from_status = load_binding()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import jansson_parse  # noqa: E402


class ImportFailure(Exception):
    pass


class Engine:
    """A libmapping context driven through the C ABI: one ctypes call per import."""

    def __init__(self, payload, parser=1):
        self.payload = payload
        self.ctx = _ffi.ContextP()
        if _ffi.context_new(payload.spec_bytes, len(payload.spec_bytes), ctypes.byref(self.ctx)) != 0:
            raise ImportFailure(f"{payload.spec_path} does not load")
        if _ffi.context_set_parser(self.ctx, parser) != 0:
            raise ImportFailure(f"parser {parser} is not available in this build")
        self.names = (ctypes.c_char_p * len(payload.mappings))(*(name.encode() for name in payload.mappings))

    def load(self, data):
        if len(self.names) == 1:
            code = _ffi.import_(self.ctx, self.names[0], data, len(data), None)
        else:
            code = _ffi.import_with(self.ctx, self.names, len(self.names), data, len(data), None, None)
        if code != 0:
            error = error_from_status(code, self.ctx)
            raise ImportFailure(f"{self.payload.name} does not import: {error} (path {error.path or '-'})")

    def objects(self):
        total, count = 0, ctypes.c_size_t()
        for entity in self.payload.spec["entities"]:
            if _ffi.count(self.ctx, entity.encode(), ctypes.byref(count)) != 0:
                raise ImportFailure(f"cannot count {entity}")
            total += count.value
        return total

    def close(self):
        _ffi.context_free(self.ctx)


# -- the hand-written Python baselines ----------------------------------------------------------

UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)


def twitter_date(text):
    return None if text is None else datetime.datetime.strptime(text, "%a %b %d %H:%M:%S %z %Y")


def iso_date(text):
    if text is None:
        return None
    value = datetime.datetime.fromisoformat(text)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def month_day_year(text):
    return None if text is None else datetime.datetime.strptime(text, "%b %d, %Y").replace(tzinfo=UTC)


def epoch_millis(number):
    return None if number is None else EPOCH + datetime.timedelta(milliseconds=number)


def rfc1123(text):
    return None if text is None else email.utils.parsedate_to_datetime(text)


class Node(dict):
    """An object of a baseline graph: a dict of attribute and relationship values that hashes and
    compares by identity, so that to-many inverses can be sets."""
    __slots__ = ()
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__


def unique(objects):
    """A to-many value: the objects in order, each once."""
    return list(dict.fromkeys(objects))


def link_one(obj, name, target, inverse):
    """Sets a to-one relationship whose inverse is a to-many set."""
    old = obj.get(name)
    if old is not target:
        if old is not None:
            old[inverse].discard(obj)
        obj[name] = target
        if target is not None:
            target[inverse].add(obj)


def link_many(obj, name, targets, inverse):
    """Sets a to-many relationship (a list) whose inverse is a to-many set."""
    old = obj.get(name)
    if old:
        for target in old:
            target[inverse].discard(obj)
    obj[name] = targets
    for target in targets:
        target[inverse].add(obj)


def link_children(obj, name, children, inverse):
    """Sets a to-many relationship (a list) whose inverse is a to-one."""
    old = obj.get(name)
    if old:
        for child in old:
            if child.get(inverse) is obj:
                child[inverse] = None
    obj[name] = children
    for child in children:
        previous = child.get(inverse)
        if previous is not None and previous is not obj:
            previous[name].remove(child)
        child[inverse] = obj


def find(table, key, **inverses):
    """The object with this identity, created with its identity and empty inverse sets if new."""
    obj = table.get(key)
    if obj is None:
        obj = table[key] = Node(inverses)
    return obj


class Graph:
    anonymous = ()  # objects without an identity (every representation of one inserts it) ...
    anonymous_entity = None  # ... and their entity

    def run(self, data, loads):
        gc.disable()
        try:
            self.load(loads(data))
        finally:
            gc.enable()

    def objects(self):
        return sum(map(len, self.tables.values())) + len(self.anonymous)


class TwitterGraph(Graph):
    def __init__(self):
        self.statuses, self.users, self.hashtags = {}, {}, {}
        self.tables = {"Status": self.statuses, "User": self.users, "Hashtag": self.hashtags}

    def load(self, root):
        for rep in root["statuses"]:
            self.status(rep)

    def user(self, id):
        user = self.users.get(id)
        if user is None:
            user = self.users[id] = Node(id=id, statuses=set(), mentionedIn=set(), repliedToBy=set())
        return user

    def status(self, rep):
        id = rep["id"]
        status = self.statuses.get(id)
        if status is None:
            status = self.statuses[id] = Node(id=id, retweets=set())
        status["text"], status["source"], status["lang"] = rep["text"], rep["source"], rep["lang"]
        status["createdAt"] = twitter_date(rep["created_at"])
        status["retweetCount"], status["favoriteCount"] = rep["retweet_count"], rep["favorite_count"]
        status["favorited"], status["retweeted"] = rep["favorited"], rep["retweeted"]
        status["truncated"], status["inReplyToStatusId"] = rep["truncated"], rep["in_reply_to_status_id"]
        status["resultType"] = rep["metadata"]["result_type"]
        item = rep["user"]
        user = self.user(item["id"])
        user["screenName"], user["name"], user["location"] = item["screen_name"], item["name"], item["location"]
        user["description"], user["url"] = item["description"], item["url"]
        user["protected"], user["verified"] = item["protected"], item["verified"]
        user["followersCount"], user["friendsCount"] = item["followers_count"], item["friends_count"]
        user["listedCount"], user["favouritesCount"] = item["listed_count"], item["favourites_count"]
        user["statusesCount"], user["createdAt"] = item["statuses_count"], twitter_date(item["created_at"])
        user["lang"], user["timeZone"], user["utcOffset"] = item["lang"], item["time_zone"], item["utc_offset"]
        user["profileImageUrl"] = item["profile_image_url_https"]
        link_one(status, "user", user, "statuses")
        entities = rep["entities"]
        mentions = []
        for item in entities["user_mentions"]:
            user = self.user(item["id"])
            user["screenName"], user["name"] = item["screen_name"], item["name"]
            mentions.append(user)
        link_many(status, "mentions", unique(mentions), "mentionedIn")
        tags = [find(self.hashtags, item["text"], text=item["text"], statuses=set()) for item in entities["hashtags"]]
        link_many(status, "hashtags", unique(tags), "statuses")
        reply = rep["in_reply_to_user_id"]
        link_one(status, "inReplyToUser", None if reply is None else self.user(reply), "repliedToBy")
        if "retweeted_status" in rep:
            nested = rep["retweeted_status"]
            link_one(status, "retweetedStatus", None if nested is None else self.status(nested), "retweets")
        return status


class CatalogGraph(Graph):
    def __init__(self):
        self.tables = {name: {} for name in ["Event", "Performance", "Price", "SeatCategory", "Area",
                                             "AudienceSubCategory", "Topic", "SubTopic", "Venue"]}
        t = self.tables
        self.events, self.performances, self.prices = t["Event"], t["Performance"], t["Price"]
        self.categories, self.areas, self.audiences = t["SeatCategory"], t["Area"], t["AudienceSubCategory"]
        self.topics, self.subtopics, self.venues = t["Topic"], t["SubTopic"], t["Venue"]

    def category(self, id):
        return find(self.categories, id, id=id, performances=set(), prices=set())

    def area(self, id):
        return find(self.areas, id, id=id, seatCategories=set())

    def audience(self, id):
        return find(self.audiences, id, id=id, prices=set())

    def topic(self, id):
        return find(self.topics, id, id=id, events=set())

    def subtopic(self, id):
        return find(self.subtopics, id, id=id, events=set())

    def event(self, id):
        return find(self.events, id, id=id, performances=set())

    def venue(self, code):
        return find(self.venues, code, code=code, performances=set())

    def load(self, root):
        for names, finder in [("areaNames", self.area), ("seatCategoryNames", self.category),
                              ("audienceSubCategoryNames", self.audience), ("topicNames", self.topic),
                              ("subTopicNames", self.subtopic)]:
            for key, name in root[names].items():
                finder(int(key))["name"] = name
        for code, name in root["venueNames"].items():
            self.venue(code)["name"] = name
        for key, rep in root["events"].items():
            event = self.event(int(key))
            event["name"], event["subtitle"], event["description"] = rep["name"], rep["subtitle"], rep["description"]
            event["logo"], event["subjectCode"] = rep["logo"], rep["subjectCode"]
            link_many(event, "topics", unique([self.topic(id) for id in rep["topicIds"]]), "events")
            link_many(event, "subTopics", unique([self.subtopic(id) for id in rep["subTopicIds"]]), "events")
        for rep in root["performances"]:
            id = rep["id"]
            performance = find(self.performances, id, id=id)
            performance["name"], performance["logo"] = rep["name"], rep["logo"]
            performance["seatMapImage"], performance["start"] = rep["seatMapImage"], epoch_millis(rep["start"])
            link_one(performance, "event", self.event(rep["eventId"]), "performances")
            link_one(performance, "venue", self.venue(rep["venueCode"]), "performances")
            categories = []
            for item in rep["seatCategories"]:
                category = self.category(item["seatCategoryId"])
                link_many(category, "areas", unique([self.area(area["areaId"]) for area in item["areas"]]),
                          "seatCategories")
                categories.append(category)
            link_many(performance, "seatCategories", unique(categories), "performances")
            prices = []
            for item in rep["prices"]:
                category, audience = item["seatCategoryId"], item["audienceSubCategoryId"]
                price = find(self.prices, (id, category, audience), performanceId=id, seatCategoryId=category,
                             audienceSubCategoryId=audience)
                price["amount"] = item["amount"]
                link_one(price, "seatCategory", self.category(category), "prices")
                link_one(price, "audienceSubCategory", self.audience(audience), "prices")
                prices.append(price)
            link_children(performance, "prices", unique(prices), "performance")


class GsocGraph(Graph):
    def __init__(self):
        self.projects, self.organizations, self.students = {}, {}, {}
        self.tables = {"Project": self.projects, "Organization": self.organizations, "Student": self.students}

    def load(self, root):
        for key, rep in root.items():
            id = int(key)
            project = find(self.projects, id, id=id)
            project["name"], project["description"] = rep["name"], rep["description"]
            project["type"], project["context"] = rep["@type"], rep["@context"]
            item = rep["sponsor"]
            organization = find(self.organizations, item["name"], name=item["name"], projects=set())
            organization["tagline"] = item["disambiguatingDescription"]
            organization["description"] = item["description"]
            organization["url"], organization["logo"], organization["type"] = item["url"], item["logo"], item["@type"]
            link_one(project, "sponsor", organization, "projects")
            item = rep["author"]
            student = find(self.students, item["name"], name=item["name"], projects=set())
            student["type"] = item["@type"]
            link_one(project, "author", student, "projects")


class PeopleGraph(Graph):
    def __init__(self):
        self.people, self.companies = {}, {}
        self.tables = {"Person": self.people, "Company": self.companies}

    def person(self, id):
        return find(self.people, id, id=id, friendOf=set())

    def load(self, root):
        for rep in root["result"]:
            person = self.person(rep["id"])
            person["name"], person["avatar"], person["age"] = rep["name"], rep["avatar"], rep["age"]
            person["admin"], person["phone"], person["email"] = rep["admin"], rep["phone"], rep["email"]
            person["birthDate"], person["field"] = rfc1123(rep["birthDate"]), rep["field"]
            name = rep["company"]
            company = None if name is None else find(self.companies, name, name=name, employees=set())
            link_one(person, "company", company, "employees")
            link_many(person, "friends", unique([self.person(item["id"]) for item in rep["friends"]]), "friendOf")


PLUGIN_TEXT = [("title", "title"), ("version", "version"), ("previousVersion", "previousVersion"),
               ("compatibleSinceVersion", "compatibleSinceVersion"), ("requiredCore", "requiredCore"),
               ("gav", "gav"), ("url", "url"), ("wiki", "wiki"), ("scm", "scm"), ("sha1", "sha1"),
               ("excerpt", "excerpt")]


class UpdateCenterGraph(Graph):
    def __init__(self):
        self.plugins, self.dependencies, self.developers, self.labels = {}, {}, {}, {}
        self.anonymous, self.anonymous_entity = [], "Developer"
        self.tables = {"Plugin": self.plugins, "Dependency": self.dependencies, "Developer": self.developers,
                       "Label": self.labels}

    def plugin(self, name):
        return find(self.plugins, name, name=name, dependents=set())

    def load(self, root):
        for key, rep in root["plugins"].items():
            plugin = self.plugin(key)
            for attribute, field in PLUGIN_TEXT:
                if field in rep:
                    plugin[attribute] = rep[field]
            if "buildDate" in rep:
                plugin["buildDate"] = month_day_year(rep["buildDate"])
            if "releaseTimestamp" in rep:
                plugin["releaseTimestamp"] = iso_date(rep["releaseTimestamp"])
            if "previousTimestamp" in rep:
                plugin["previousTimestamp"] = iso_date(rep["previousTimestamp"])
            if "dependencies" in rep:
                dependencies = []
                for item in rep["dependencies"] or ():
                    name = item["name"]
                    dependency = find(self.dependencies, (key, name), ownerName=key, name=name)
                    dependency["version"], dependency["optional"] = item["version"], item["optional"]
                    link_one(dependency, "plugin", self.plugin(name), "dependents")
                    dependencies.append(dependency)
                link_children(plugin, "dependencies", unique(dependencies), "owner")
            if "developers" in rep:
                developers = []
                for item in rep["developers"] or ():
                    id = item.get("developerId")
                    if id is None:
                        developer = Node(plugins=set())
                        self.anonymous.append(developer)
                    else:
                        developer = find(self.developers, id, developerId=id, plugins=set())
                    if "name" in item:
                        developer["name"] = item["name"]
                    if "email" in item:
                        developer["email"] = item["email"]
                    developers.append(developer)
                link_many(plugin, "developers", unique(developers), "plugins")
            if "labels" in rep:
                labels = [find(self.labels, name, name=name, plugins=set()) for name in rep["labels"] or ()]
                link_many(plugin, "labels", unique(labels), "plugins")


def copy_present(obj, rep, fields):
    for attribute, field in fields:
        if field in rep:
            obj[attribute] = rep[field]


GITHUB_ACTOR = [("login", "login"), ("avatarURL", "avatar_url"), ("gravatarID", "gravatar_id"), ("url", "url")]


class GithubGraph(Graph):
    def __init__(self):
        self.tables = {name: {} for name in ["Event", "User", "Repo", "Org", "Issue", "Comment"]}
        t = self.tables
        self.events, self.users, self.repos, self.orgs, self.issues, self.comments = (
            t["Event"], t["User"], t["Repo"], t["Org"], t["Issue"], t["Comment"])

    def user(self, rep):
        user = find(self.users, rep["id"], id=rep["id"], events=set(), issues=set(), comments=set(), repos=set())
        copy_present(user, rep, GITHUB_ACTOR)
        return user

    def load(self, root):
        for rep in root:
            id = str(rep["id"])
            event = find(self.events, id, id=id)
            copy_present(event, rep, [("type", "type"), ("public", "public"), ("payload", "payload")])
            if "created_at" in rep:
                event["createdAt"] = iso_date(rep["created_at"])
            if "actor" in rep:
                link_one(event, "actor", None if rep["actor"] is None else self.user(rep["actor"]), "events")
            if "repo" in rep:
                item = rep["repo"]
                repo = None
                if item is not None:
                    repo = find(self.repos, item["id"], id=item["id"], events=set(), forkEvents=set())
                    copy_present(repo, item, [("name", "name"), ("url", "url")])
                link_one(event, "repo", repo, "events")
            if "org" in rep:
                item = rep["org"]
                org = None
                if item is not None:
                    org = find(self.orgs, item["id"], id=item["id"], events=set())
                    copy_present(org, item, [("login", "login"), ("url", "url"), ("avatarURL", "avatar_url")])
                link_one(event, "org", org, "events")
            payload = rep.get("payload")
            if not isinstance(payload, dict):
                continue
            if "issue" in payload:
                item = payload["issue"]
                issue = None
                if item is not None:
                    issue = find(self.issues, item["id"], id=item["id"], events=set())
                    copy_present(issue, item, [("number", "number"), ("title", "title"), ("state", "state")])
                    if "created_at" in item:
                        issue["createdAt"] = iso_date(item["created_at"])
                    if "user" in item:
                        link_one(issue, "user", None if item["user"] is None else self.user(item["user"]), "issues")
                link_one(event, "issue", issue, "events")
            if "comment" in payload:
                item = payload["comment"]
                comment = None
                if item is not None:
                    comment = find(self.comments, item["id"], id=item["id"], events=set())
                    copy_present(comment, item, [("body", "body")])
                    if "created_at" in item:
                        comment["createdAt"] = iso_date(item["created_at"])
                    if "user" in item:
                        link_one(comment, "user", None if item["user"] is None else self.user(item["user"]), "comments")
                link_one(event, "comment", comment, "events")
            if "forkee" in payload:
                item = payload["forkee"]
                repo = None
                if item is not None:
                    repo = find(self.repos, item["id"], id=item["id"], events=set(), forkEvents=set())
                    copy_present(repo, item, [("name", "name"), ("fullName", "full_name"), ("url", "url"),
                                              ("language", "language")])
                    if "created_at" in item:
                        repo["createdAt"] = iso_date(item["created_at"])
                    if "owner" in item:
                        link_one(repo, "owner", None if item["owner"] is None else self.user(item["owner"]), "repos")
                link_one(event, "forkee", repo, "forkEvents")


# -- the payloads -------------------------------------------------------------------------------

class Payload:
    def __init__(self, name, mappings, graph):
        self.name, self.mappings, self.graph = name, mappings, graph
        self.data_path = os.path.join(DATA, name + ".json")
        if not os.path.exists(self.data_path):
            fail(f"{self.data_path} is missing: MAPPING_BENCH_DATA must name the folder of the benchmark payloads")
        self.spec_path = os.path.join(SPECS, name + ".spec.json")
        with open(self.spec_path, "rb") as file:
            self.spec_bytes = file.read()
        self.spec = json.loads(self.spec_bytes)
        with open(self.data_path, "rb") as file:
            self.data = file.read()


PAYLOADS = [
    ("twitter", ["status"], TwitterGraph),
    ("citm_catalog", ["areaName", "seatCategoryName", "audienceSubCategoryName", "topicName", "subTopicName",
                      "venueName", "event", "performance"], CatalogGraph),
    ("gsoc-2018", ["project"], GsocGraph),
    ("random", ["person"], PeopleGraph),
    ("update-center", ["plugin"], UpdateCenterGraph),
    ("github_events", ["event"], GithubGraph),
]


# -- checking that every way builds the same graph ----------------------------------------------

def identification(spec, entity):
    names = spec["entities"][entity]["identification"]
    return [name.strip() for name in names.split(",")] if isinstance(names, str) else list(names)


def compare(payload, ctx, graph, label):
    """Differences between the context's graph and the baseline's: counts per entity, then every
    attribute and relationship of every identified object."""
    spec, problems = payload.spec, []
    handle_keys, engine_objects = {}, {}
    for entity in spec["entities"]:
        objects = ctx.all(entity)
        keys = list(zip(*(ctx.values(objects, name) for name in identification(spec, entity))))
        handle_keys.update(zip(objects, keys))
        engine_objects[entity] = (objects, keys)
        expected = len(graph.tables[entity]) + (len(graph.anonymous) if entity == graph.anonymous_entity else 0)
        if len(objects) != expected:
            problems.append(f"{entity}: {len(objects)} objects, the baseline has {expected}")

    def node_key(node, entity):
        return tuple(node.get(name) for name in identification(spec, entity))

    for entity, description in spec["entities"].items():
        objects, keys = engine_objects[entity]
        nodes = {node_key(node, entity): node for node in graph.tables[entity].values()}
        identified = [(index, key) for index, key in enumerate(keys) if None not in key]
        missing = [key for _, key in identified if key not in nodes]
        if missing:
            problems.append(f"{entity}: {len(missing)} objects absent from the baseline, e.g. {missing[0]}")
        for attribute in description.get("attributes", {}):
            values = ctx.values(objects, attribute)
            for index, key in identified:
                expected = nodes[key].get(attribute) if key in nodes else None
                if key in nodes and values[index] != expected:
                    problems.append(f"{entity} {key} {attribute}: {values[index]!r} != baseline {expected!r}")
        for relationship, model in description.get("relationships", {}).items():
            target = model["entity"]
            for index, key in identified:
                node = nodes.get(key)
                if node is None:
                    continue
                related, expected = objects[index].related(relationship), node.get(relationship)
                if not model.get("toMany"):
                    got = None if related is None else handle_keys[related]
                    want = None if expected is None else node_key(expected, target)
                else:
                    got = [handle_keys[item] for item in related]
                    want = [node_key(item, target) for item in expected or ()]
                    if not model.get("ordered"):
                        got, want = collections.Counter(got), collections.Counter(want)
                if got != want:
                    problems.append(f"{entity} {key} {relationship}: {got} != baseline {want}")
    return [f"{payload.name} ({label}): {problem}" for problem in problems]


def check(payload):
    """Imports the payload with both parsers and checks the graphs against the baseline's, fresh
    and after a re-import; returns the entity counts. Exits with a message on any failure."""
    baseline, again = payload.graph(), payload.graph()
    baseline.run(payload.data, json.loads)
    again.run(payload.data, json.loads)
    again.run(payload.data, orjson.loads)
    for loads, name in [(orjson.loads, "orjson"), (msgspec.json.decode, "msgspec")]:
        fast = payload.graph()
        fast.run(payload.data, loads)
        if fast.objects() != baseline.objects():
            fail(f"{payload.name}: the {name} baseline has {fast.objects()} objects, the json one {baseline.objects()}")
    problems = []
    for parser in ["jansson", "simdjson"]:
        try:
            ctx = mapping.Context(payload.spec_bytes, parser=parser)
        except mapping.MappingError as error:
            fail(f"{payload.spec_path} does not load: {error} (path {error.path or '-'})")
        with ctx:
            try:
                ctx.import_json(payload.mappings, payload.data)
            except mapping.MappingError as error:
                fail(f"{payload.name} does not import with {parser}: {error} (path {error.path or '-'}, "
                     f"attribute {error.attribute or '-'})")
            problems += compare(payload, ctx, baseline, parser)
            counts = {entity: ctx.count(entity) for entity in payload.spec["entities"]}
            try:
                ctx.import_json(payload.mappings, payload.data)
            except mapping.MappingError as error:
                fail(f"{payload.name} does not re-import with {parser}: {error} (path {error.path or '-'})")
            problems += compare(payload, ctx, again, parser + ", re-import")
    if problems:
        fail(f"the graphs differ ({len(problems)} differences):\n  " + "\n  ".join(problems[:20]))
    return counts


# -- timing -------------------------------------------------------------------------------------

WAYS = [("parse", "jansson parse only (json_loadb + json_delete)"),
        ("cold", "libmapping cold import, jansson"),
        ("update", "libmapping re-import, jansson"),
        ("simd-cold", "libmapping cold import, simdjson"),
        ("simd-update", "libmapping re-import, simdjson"),
        ("py-cold", "Python json + dict identity maps, GC paused"),
        ("py-update", "… re-import"),
        ("orjson-cold", "orjson + dict identity maps, GC paused"),
        ("orjson-update", "… re-import"),
        ("msgspec-cold", "msgspec + dict identity maps, GC paused"),
        ("msgspec-update", "… re-import")]


def timed(work):
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def measure(payload, rounds):
    data = payload.data
    samples = {key: [] for key, _ in WAYS}
    objects = {}
    for _ in range(rounds):
        samples["parse"].append(timed(lambda: jansson_parse(data)))
        for parser, prefix in [(1, ""), (SIMDJSON, "simd-")]:
            engine = Engine(payload, parser)
            samples[prefix + "cold"].append(timed(lambda: engine.load(data)))
            objects[prefix + "cold"] = engine.objects()
            samples[prefix + "update"].append(timed(lambda: engine.load(data)))
            objects[prefix + "update"] = engine.objects()
            engine.close()
        for loads, prefix in [(json.loads, "py-"), (orjson.loads, "orjson-"), (msgspec.json.decode, "msgspec-")]:
            graph = payload.graph()
            samples[prefix + "cold"].append(timed(lambda: graph.run(data, loads)))
            objects[prefix + "cold"] = graph.objects()
            samples[prefix + "update"].append(timed(lambda: graph.run(data, loads)))
            objects[prefix + "update"] = graph.objects()
            del graph
            gc.collect()  # the baseline graphs are cycles (inverses): free them outside the timings
    return {key: statistics.median(values) for key, values in samples.items()}, objects


def main():
    if not DATA:
        print("payloads.py: skipped: no real API payloads (set MAPPING_BENCH_DATA to the folder holding "
              + ", ".join(name + ".json" for name, _, _ in PAYLOADS) + ")")
        return
    if orjson is None or msgspec is None:
        fail("the Python packages orjson and msgspec are needed (pip install orjson msgspec)")
    if not _ffi.parser_available(SIMDJSON):
        fail("this build of libmapping has no simdjson parser")
    payloads = []
    for name, mappings, graph in PAYLOADS:
        try:
            payloads.append(Payload(name, mappings, graph))
        except OSError as error:
            fail(f"cannot read {name}: {error}")
    counts = [check(payload) for payload in payloads]
    results = []
    for payload in payloads:
        try:
            results.append(measure(payload, ROUNDS))
        except ImportFailure as error:
            fail(str(error))
    print("# Import benchmarks (real API payloads)\n")
    print(f"Machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"libmapping {_ffi.version().decode()}, orjson {orjson.__version__}, msgspec {msgspec.__version__}; one "
          f"process, {ROUNDS} interleaved rounds per payload, medians. Ratios are to jansson's bare parse of the same "
          "bytes. Every way builds the same graph (checked before timing, both parsers, fresh and re-imported).\n")
    for payload, entity_counts, (medians, objects) in zip(payloads, counts, results):
        graph = ", ".join(f"{count:,} {entity}" for entity, count in entity_counts.items())
        print(f"## {payload.name}.json ({len(payload.data) / 1e6:.2f} MB)\n")
        print(f"Graph: {graph}. Root mappings: {', '.join(payload.mappings)}.\n")
        print("| way | time | vs jansson parse | objects |\n|---|---|---|---|")
        for key, label in WAYS:
            count = f"{objects[key]:,}" if key in objects else "—"
            print(f"| {label} | {medians[key] * 1e3:.2f} ms | {medians[key] / medians['parse']:.2f}× | {count} |")
        print()
    print("## Summary: time as a multiple of jansson's bare parse\n")
    keys = [key for key, _ in WAYS[1:]]
    print("| payload | " + " | ".join(["lm cold", "lm re", "lm simd cold", "lm simd re", "py json cold", "py json re",
                                          "orjson cold", "orjson re", "msgspec cold", "msgspec re"]) + " |")
    print("|---|" + "---|" * len(keys))
    for payload, (medians, _) in zip(payloads, results):
        print(f"| {payload.name} | " + " | ".join(f"{medians[key] / medians['parse']:.2f}×" for key in keys) + " |")
    print_targets(payloads, results)


def print_targets(payloads, results):
    """Per payload: libmapping's simdjson path against the msgspec and orjson baselines, cold and
    re-imported; met when it is faster than both in both."""
    print("\n## Target: simdjson path faster than msgspec and orjson, as measured in this run\n")
    pairs = [(f"simd-{phase}", f"{way}-{phase}") for phase in ("cold", "update") for way in ("msgspec", "orjson")]
    print("| payload | simdjson cold / msgspec cold | simdjson cold / orjson cold | simdjson re / msgspec re | "
          "simdjson re / orjson re | simdjson path faster than msgspec and orjson |")
    print("|---|" + "---|" * (len(pairs) + 1))
    for payload, (medians, _) in zip(payloads, results):
        ratios = [medians[simd] / medians[other] for simd, other in pairs]
        print(f"| {payload.name} | " + " | ".join(f"{ratio:.2f}×" for ratio in ratios)
              + f" | {'met' if max(ratios) < 1 else 'missed'} |")


if __name__ == "__main__":
    main()
