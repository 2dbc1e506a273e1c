"""Import costs side by side: the people workload of bench/people.py at 10k and
100k records, interleaved rounds in one process, medians. Every way does the same job — people
uniqued by id with their inline companies uniqued by id and their phones uniqued by number,
ISO dates parsed — and ratios are to jansson's bare parse of the same bytes.
  - jansson parse only: json_loadb + json_delete through ctypes (one call each, so C speed)
  - libmapping cold import: a new context, mapping_context_import (through ctypes: one call)
  - libmapping re-import: the same payload again into that context (every object updated)
  - libmapping with the simdjson parser (MAPPING_PARSER_SIMDJSON), cold and re-import
  - Python json / orjson + dict identity maps, GC paused: the hand-written baselines
  - msgspec + __slots__ classes, GC paused: one reused msgspec.json.Decoder into typed
    msgspec.Structs (validated, typed in C, birthdate a native datetime.date), then the same identity
    maps as the dict baselines but with __slots__ objects: the fastest way a Python programmer does
    this job today
  - libmapping through the Python binding (mapping.Context with the simdjson parser): import_json,
    cold into a new context, then the same payload again; only the import calls are timed
  - Swift JSONDecoder + Codable + dictionary identity maps (bench/swift, codable-baseline)
  - Swift walking simdjson's tape by hand (bench/swift, simd-baseline): the practical limit
    The Swift baselines run as a subprocess per round; each reports its second, warm round.
Writes a Markdown report on stdout (`make bench` keeps it in bench/RESULTS.md)."""
import ctypes
import datetime
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import List, Optional

try:
    import orjson
except ImportError:  # the orjson row is left out without it
    orjson = None
try:
    import msgspec
except ImportError:  # the msgspec rows are left out without it
    msgspec = None

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python", "src"))
from mapping import Context, _ffi  # noqa: E402

GENERATOR = os.path.join(HERE, "people.py")
# 1M records: one round (about a minute per way); BENCH_SIZES=small leaves it out.
LOOKUPS = 10_000  # identity lookups timed per round, spread over the ids
SIZES = [(10_000, 7), (100_000, 5)] + ([] if os.environ.get("BENCH_SIZES") == "small" else [(1_000_000, 1)])
SPEC = open(os.path.join(HERE, "people.spec.json"), "rb").read()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import jansson_parse  # noqa: E402


class Engine:
    """A libmapping context driven through the C ABI (one ctypes call per import)."""

    def __init__(self, parser=1):
        self.ctx = _ffi.ContextP()
        if _ffi.context_new(SPEC, len(SPEC), ctypes.byref(self.ctx)) != 0:
            raise RuntimeError("the bench spec does not load")
        if _ffi.context_set_parser(self.ctx, parser) != 0:
            raise RuntimeError("the parser is not available in this build")

    def load(self, data):
        if _ffi.import_(self.ctx, b"person", data, len(data), None) != 0:
            raise RuntimeError("import failed")

    def serialize(self):
        """Every person written out with the `person` mapping (company and phones nested)."""
        people, text = _ffi.ListP(), ctypes.c_void_p()
        if _ffi.all_(self.ctx, b"Person", ctypes.byref(people)) != 0:
            raise RuntimeError("mapping_entity_all failed")
        try:
            if _ffi.serialize_list(self.ctx, b"person", people, 0, ctypes.byref(text)) != 0:
                raise RuntimeError("serialize failed")
            length = len(ctypes.string_at(text.value))
            _ffi.free(text)
            return length
        finally:
            _ffi.list_free(people)

    def lookups(self, keys):
        """Each person of `keys` by identity, one mapping_entity_find call each."""
        found = _ffi.Object()
        for key in keys:
            if _ffi.get(self.ctx, b"Person", key, ctypes.byref(found)) != 0:
                raise RuntimeError("lookup failed")

    def close(self):
        _ffi.context_free(self.ctx)


class DictGraph:
    """The hand-written Python baseline: dicts uniqued through per-entity identity maps.
    Written back out as the `person` mapping does (company and phones nested) with json.dumps."""

    def serialize(self, dumps=json.dumps):
        rows = []
        for person in self.people.values():
            row = {"id": person["id"], "name": person["name"], "email": person["email"],
                   "birthdate": person["birthdate"].isoformat(), "score": person["score"],
                   "active": person["active"], "company_id": person["companyId"],
                   "phones": [{"number": phone["number"], "type": phone["type"]} for phone in person["phones"]]}
            company = person.get("company")
            if company is not None:
                row["company"] = {"id": company["id"], "name": company["name"], "country": company["country"]}
            rows.append(row)
        return len(dumps(rows))

    def lookups(self, keys):
        people = self.people
        for key in keys:
            if people.get(key) is None:
                raise RuntimeError("lookup failed")

    def __init__(self, loads=json.loads):
        self.people, self.companies, self.phones = {}, {}, {}
        self.loads = loads

    def load(self, data):
        gc.disable()
        try:
            for row in self.loads(data)["people"]:
                person = self.people.get(row["id"])
                if person is None:
                    person = self.people[row["id"]] = {"id": row["id"]}
                person["name"], person["email"] = row["name"], row["email"]
                person["birthdate"] = datetime.datetime.fromisoformat(row["birthdate"]).replace(tzinfo=datetime.timezone.utc)
                person["score"], person["active"], person["companyId"] = float(row["score"]), row["active"], row["company_id"]
                inline = row.get("company")
                if inline is not None:
                    company = self.companies.get(inline["id"])
                    if company is None:
                        company = self.companies[inline["id"]] = {"id": inline["id"], "employees": []}
                    company["name"], company["country"] = inline["name"], inline["country"]
                    if person.get("company") is not company:
                        company["employees"].append(person)
                        person["company"] = company
                phones = []
                for item in row["phones"]:
                    phone = self.phones.get(item["number"])
                    if phone is None:
                        phone = self.phones[item["number"]] = {"number": item["number"]}
                    phone["type"], phone["owner"] = item["type"], person
                    phones.append(phone)
                person["phones"] = phones
        finally:
            gc.enable()


class Person:
    """MsgspecGraph's objects: a __slots__ class per entity, its attributes and relationships."""
    __slots__ = ("id", "name", "email", "birthdate", "score", "active", "companyId", "company", "phones")

    def __init__(self, id):
        self.id, self.company = id, None


class Company:
    __slots__ = ("id", "name", "country", "employees")

    def __init__(self, id):
        self.id, self.employees = id, []


class Phone:
    __slots__ = ("number", "type", "owner")

    def __init__(self, number):
        self.number = number


if msgspec is not None:
    class CompanyRep(msgspec.Struct):
        id: int
        name: str
        country: str

    class PhoneRep(msgspec.Struct):
        number: str
        type: str

    class PersonRep(msgspec.Struct):
        id: int
        name: str
        email: str
        birthdate: datetime.date  # decoded natively by msgspec (in C), as a performance-minded user types it
        score: float
        active: bool
        company_id: int
        phones: List[PhoneRep]
        company: Optional[CompanyRep] = None

    class Payload(msgspec.Struct):
        people: List[PersonRep]

    # One decoder for every call: msgspec builds its typed decoding plan once, as a program that
    # decodes the same shape again and again keeps it.
    PAYLOAD_DECODER = msgspec.json.Decoder(Payload)


class MsgspecGraph:
    """The fastest hand-written Python baseline: one reused msgspec Decoder turns the payload into
    typed Structs (the types of people.py's shape, checked and converted in C; score as float,
    birthdate as datetime.date, which msgspec decodes natively), then the same identity maps and
    relationship upkeep as DictGraph, into __slots__ objects instead of dicts. GC paused."""

    def __init__(self):
        self.people, self.companies, self.phones = {}, {}, {}

    def load(self, data):
        gc.disable()
        try:
            for row in PAYLOAD_DECODER.decode(data).people:
                person = self.people.get(row.id)
                if person is None:
                    person = self.people[row.id] = Person(row.id)
                person.name, person.email = row.name, row.email
                person.birthdate = row.birthdate
                person.score, person.active, person.companyId = row.score, row.active, row.company_id
                inline = row.company
                if inline is not None:
                    company = self.companies.get(inline.id)
                    if company is None:
                        company = self.companies[inline.id] = Company(inline.id)
                    company.name, company.country = inline.name, inline.country
                    if person.company is not company:
                        company.employees.append(person)
                        person.company = company
                phones = []
                for item in row.phones:
                    phone = self.phones.get(item.number)
                    if phone is None:
                        phone = self.phones[item.number] = Phone(item.number)
                    phone.type, phone.owner = item.type, person
                    phones.append(phone)
                person.phones = phones
        finally:
            gc.enable()


def timed(work):
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


SWIFT_BIN = os.path.join(HERE, "swift", ".build", "release")


def swift_baseline(name, path):
    """(cold, update) seconds of a bench/swift baseline on the file at `path`, or None if not built."""
    binary = os.path.join(SWIFT_BIN, name)
    if not os.path.exists(binary):
        return None
    cold, update, _objects = subprocess.run([binary, path], check=True, capture_output=True, text=True).stdout.split()
    return float(cold), float(update)


def run(count, rounds):
    data = subprocess.run([sys.executable, GENERATOR, str(count)], check=True, capture_output=True).stdout
    path = os.path.join(HERE, "data", f"people_{count}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as file:
        file.write(data)
    keys = ["parse", "cold", "update", "simd-cold", "simd-update", "binding-simd-cold", "binding-simd-update", "py-cold",
            "py-update", "orjson-cold", "orjson-update", "msgspec-cold", "msgspec-update", "codable-cold", "codable-update",
            "hand-cold", "hand-update", "serialize", "py-serialize", "orjson-serialize", "lookup", "py-lookup"]
    ids = list(range(0, count, max(1, count // LOOKUPS)))[:LOOKUPS]  # people.py's ids are 0 … count - 1
    c_keys, py_keys = [str(key).encode() for key in ids], ids
    samples = {key: [] for key in keys}
    for _ in range(rounds):
        samples["parse"].append(timed(lambda: jansson_parse(data)))
        engine = Engine()
        samples["cold"].append(timed(lambda: engine.load(data)))
        samples["update"].append(timed(lambda: engine.load(data)))
        samples["serialize"].append(timed(engine.serialize))
        samples["lookup"].append(timed(lambda: engine.lookups(c_keys)) / len(c_keys))
        engine.close()
        engine = Engine(parser=2)
        samples["simd-cold"].append(timed(lambda: engine.load(data)))
        samples["simd-update"].append(timed(lambda: engine.load(data)))
        engine.close()
        context = Context(SPEC, parser="simdjson")
        samples["binding-simd-cold"].append(timed(lambda: context.import_json("person", data)))
        samples["binding-simd-update"].append(timed(lambda: context.import_json("person", data)))
        context.close()
        graph = DictGraph()
        samples["py-cold"].append(timed(lambda: graph.load(data)))
        samples["py-update"].append(timed(lambda: graph.load(data)))
        samples["py-serialize"].append(timed(graph.serialize))
        if orjson is not None:
            samples["orjson-serialize"].append(timed(lambda: graph.serialize(orjson.dumps)))
        samples["py-lookup"].append(timed(lambda: graph.lookups(py_keys)) / len(py_keys))
        del graph
        if orjson is not None:
            graph = DictGraph(orjson.loads)
            samples["orjson-cold"].append(timed(lambda: graph.load(data)))
            samples["orjson-update"].append(timed(lambda: graph.load(data)))
            del graph
        if msgspec is not None:
            graph = MsgspecGraph()
            samples["msgspec-cold"].append(timed(lambda: graph.load(data)))
            samples["msgspec-update"].append(timed(lambda: graph.load(data)))
            del graph
        for prefix, name in (("codable", "codable-baseline"), ("hand", "simd-baseline")):
            measured = swift_baseline(name, path)
            if measured is not None:
                samples[prefix + "-cold"].append(measured[0])
                samples[prefix + "-update"].append(measured[1])
    return len(data), {key: statistics.median(values) for key, values in samples.items() if values}


# Each baseline's code path, said in the report: a ratio means only as much as the baseline it is
# taken against, and these are the strongest code a performance-minded user of each tool writes.
BASELINE_PATHS = [
    ("jansson parse only", "ctypes: one json_loadb, one json_delete; nothing mapped"),
    ("Python json / orjson + dict identity maps", "json.loads / orjson.loads of the whole payload, then per person a "
     "dict per entity uniqued through dict identity maps; dates by datetime.fromisoformat; gc.disable() around the load"),
    ("msgspec Structs + __slots__", "one msgspec.json.Decoder(Payload) built once and reused; typed Structs (int, str, "
     "float, bool, birthdate as datetime.date decoded natively in C); __slots__ objects uniqued through dict identity "
     "maps; gc.disable() around the load"),
    ("Swift JSONDecoder + Codable", "bench/swift codable-baseline: one JSONDecoder reused, Codable structs, the bare "
     "birthdate parsed by hand to epoch seconds (no DateFormatter), dictionary identity maps into final classes; the "
     "second, warm round of a process"),
    ("Swift hand-written on simdjson's tape", "bench/swift simd-baseline: one simdjson DOM parser reused, its tape "
     "walked by hand for exactly this payload (keys matched by bytes, strings made only for stored values), dictionary "
     "identity maps into final classes; the practical limit"),
    ("libmapping through the Python binding", "mapping.Context(spec, parser=\"simdjson\").import_json(name, bytes): "
     "one ctypes call per import; only the import calls are timed"),
]


def main():
    results = [(count, rounds, *run(count, rounds)) for count, rounds in SIZES]
    print("# Import benchmarks (people workload)\n")
    print(f"Machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          "one process, interleaved rounds, medians. Ratios are to jansson's bare parse of the same bytes.\n")
    labels = [("parse", "jansson parse only (json_loadb + json_delete)"), ("cold", "libmapping cold import"),
              ("update", "libmapping re-import (same ids)"), ("simd-cold", "libmapping cold import, simdjson parser"),
              ("simd-update", "libmapping re-import, simdjson parser"),
              ("binding-simd-cold", "libmapping through the Python binding, simdjson parser: cold import_json"),
              ("binding-simd-update", "… re-import"), ("py-cold", "Python json + dict identity maps, GC paused"),
              ("py-update", "… re-import"), ("orjson-cold", "Python orjson + dict identity maps, GC paused"),
              ("orjson-update", "… re-import"), ("msgspec-cold", "msgspec Structs + __slots__ identity maps, GC paused"),
              ("msgspec-update", "… re-import"), ("codable-cold", "Swift JSONDecoder + Codable + dictionaries"),
              ("codable-update", "… re-import"), ("hand-cold", "Swift hand-written on simdjson's tape (practical limit)"),
              ("hand-update", "… re-import"), ("serialize", "libmapping serialize every person (mapping_list_serialize)"),
              ("py-serialize", "Python dicts → json.dumps, same shape"), ("orjson-serialize", "Python dicts → orjson.dumps")]
    lookups = [("lookup", "libmapping lookup by identity (mapping_entity_find through ctypes)"),
               ("py-lookup", "Python dict.get")]
    print("## Baselines: what each row runs\n")
    print("| row | code path |\n|---|---|")
    for row, path in BASELINE_PATHS:
        print(f"| {row} | {path} |")
    print()
    for count, rounds, size, medians in results:
        print(f"## {count:,} people ({size / 1e6:.1f} MB, {rounds} rounds)\n")
        print("| way | time | vs jansson parse | µs per person |\n|---|---|---|---|")
        for key, label in labels:
            if key not in medians:
                continue
            print(f"| {label} | {medians[key] * 1e3:.1f} ms | {medians[key] / medians['parse']:.2f}× | "
                  f"{medians[key] / count * 1e6:.2f} |")
        print("\n| lookup | per lookup |\n|---|---|")
        for key, label in lookups:
            if key in medians:
                print(f"| {label} | {medians[key] * 1e6:.2f} µs |")
        print()
    (small, _, _, first), (large, _, _, last) = results[0], results[-1]
    print("## Per-object cost from the smallest to the largest workload\n")
    print("| way | ratio of µs per person |\n|---|---|")
    for key, label in labels[1:5]:
        print(f"| {label} | {(last[key] / large) / (first[key] / small):.2f}× |")
    print_targets(results)
    print_targets_13(results)


def target_heading(title, results):
    """A targets section's heading and table head: a column per workload size."""
    print(f"\n## {title}, as measured in this run\n")
    print("| target | " + " | ".join(f"{count:,}" for count, *_ in results) + " |")
    print("|---|" + "---|" * len(results))


def target_row(label, values, limit, low=0.0):
    """One target's row: a value per workload size (None prints —), met when within low..limit."""
    cells = ["—" if value is None else f"{value:.2f}× {'met' if low <= value <= limit else 'missed'}"
             for value in values]
    print(f"| {label} | " + " | ".join(cells) + " |")


def print_targets(results):
    """Issue 5's targets, each as the ratio this run measured, per workload size."""
    target_heading("Targets (issue 5)", results)

    def row(label, ratio, limit):
        target_row(label, [ratio(medians) for *_, medians in results], limit)

    row("1. jansson cold import / jansson parse ≤ 1.3", lambda m: m["cold"] / m["parse"], 1.3)
    row("1. jansson re-import / jansson parse ≤ 1.4", lambda m: m["update"] / m["parse"], 1.4)
    for way, name in (("py", "Python json"), ("orjson", "Python orjson"), ("codable", "Swift Codable")):
        for phase in ("cold", "update"):
            row(f"2. simdjson {phase} / {name} {phase} < 1", lambda m, w=way, p=phase:
                m[f"simd-{p}"] / m[f"{w}-{p}"] if f"{w}-{p}" in m else None, 0.999)
    for phase in ("cold", "update"):
        row(f"2. simdjson {phase} / hand-written Swift+simdjson ≤ 2", lambda m, p=phase:
            m[f"simd-{p}"] / m[f"hand-{p}"] if f"hand-{p}" in m else None, 2.0)
    print("\nTarget 3 (per-object cost flat within ±25% from the smallest to the largest size): "
          "the per-object table above.")


def print_targets_13(results):
    """Issue 13's targets, per workload size. Target 5 compares each size's µs per person with the
    smallest size's (— in the smallest size's column); the largest size's cell is the target."""
    target_heading("Targets (issue 13)", results)

    def row(label, key, other, limit):
        target_row(label, [m[key] / m[other] if key in m and other in m else None for *_, m in results], limit)

    row("1. binding simdjson cold / msgspec cold ≤ 0.7", "binding-simd-cold", "msgspec-cold", 0.7)
    row("1. binding simdjson re-import / msgspec re-import ≤ 0.5", "binding-simd-update", "msgspec-update", 0.5)
    row("1. binding simdjson cold / hand-written Swift+simdjson ≤ 1.5", "binding-simd-cold", "hand-cold", 1.5)
    row("3. jansson cold / jansson parse ≤ 1.3", "cold", "parse", 1.3)
    row("3. jansson re-import / jansson parse ≤ 1.2", "update", "parse", 1.2)
    (small, _, _, first), rest = results[0], results[1:]
    for key, name in (("binding-simd-cold", "binding simdjson cold"), ("cold", "jansson cold")):
        target_row(f"5. per-object cost flat within ±25%: {name}, µs per person vs {small:,}",
                   [None] + [(m[key] / count) / (first[key] / small) for count, _, _, m in rest], 1.25, 0.75)


if __name__ == "__main__":
    main()
