"""05 — A large import with a progress bar: 60,000 generated people with companies and phones.
Introduces: import_json(..., on_progress=..., progress_interval=...), metadata."""
import random
import sys
import time

import mapping

SPEC = {
    "entities": {
        "Person": {"attributes": {"id": "integer", "name": "string", "source": "string"},
                   "relationships": {"company": {"entity": "Company", "inverse": "employees"},
                                     "phones": {"entity": "Phone", "toMany": True, "inverse": "owner"}}},
        "Company": {"attributes": {"id": "integer", "name": "string"},
                    "relationships": {"employees": {"entity": "Person", "toMany": True, "inverse": "company"}}},
        "Phone": {"attributes": {"number": "string"}, "identification": "number",
                  "relationships": {"owner": {"entity": "Person", "inverse": "phones"}}},
    },
    "mappings": {
        "person": {"entity": "Person", "rootPath": "people",
                   "attributes": {"id": "id", "name": "name", "source": "@metadata.source"},
                   "relationships": {"company": {"mapping": "company"}, "phones": {"mapping": "phone"}}},
        "company": {"entity": "Company", "attributes": {"id": "id", "name": "name"}},
        "phone": {"entity": "Phone", "attributes": {"number": None}},
    },
}


def people(count, seed=7):
    rnd = random.Random(seed)
    return {"people": [{"id": i, "name": f"Person {i}",
                        "company": {"id": rnd.randint(1, 500), "name": "Company"},
                        "phones": [f"+1-555-{i:07d}-{k}" for k in range(rnd.randint(0, 2))]}
                       for i in range(1, count + 1)]}


def bar(done, known, width=40):
    filled = width * done // max(known, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done:>7,} / {known:,} objects")
    sys.stderr.flush()


payload = people(60_000)
with mapping.Context(SPEC) as ctx:
    started = time.perf_counter()
    top = ctx.import_json("person", payload, metadata={"source": "generated"}, on_progress=bar,
                          progress_interval=5_000)
    sys.stderr.write("\n")
    print(f"imported {len(top):,} people, {ctx.count('Company'):,} companies, {ctx.count('Phone'):,} phones "
          f"in {time.perf_counter() - started:.2f} s; first from {top[0]['source']!r}")
