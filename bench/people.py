"""The people workload of the benchmarks: N people, each with a company id, 0-3 phones and for
about 30% an inline company (so identity uniquing has work), from a fixed seed — the same bytes on
every run. bench/instructions.c builds the same shape in C for `make bench-check`.

usage: people.py N > people.json
"""
import json
import random
import sys


def people(count, seed=42):
    rnd = random.Random(seed)
    companies = max(100, count // 50)
    first = ["Ada", "Bo", "Cy", "Dee", "Eve", "Finn", "Gus", "Hal", "Ivy", "Jo", "Kai", "Lu"]
    last = ["Smith", "Jones", "Ng", "Garcia", "Kowalski", "Okafor", "Ito", "Novak"]
    countries = ["US", "DE", "FR", "JP", "BR", "IN", "NG", "SE"]
    result = []
    for i in range(count):
        company = rnd.randrange(companies)
        given, family = rnd.choice(first), rnd.choice(last)
        person = {
            "id": i, "name": f"{given} {family}", "email": f"{given}.{family}{i}@example.com".lower(),
            "birthdate": f"19{rnd.randrange(50, 100)}-{rnd.randrange(1, 13):02d}-{rnd.randrange(1, 29):02d}",
            "score": round(rnd.random() * 100, 3), "active": rnd.random() < 0.7, "company_id": company,
            "phones": [{"number": f"+1-555-{i * 4 + p:07d}", "type": rnd.choice(["home", "work", "mobile"])}
                       for p in range(rnd.randrange(4))],
        }
        if rnd.random() < 0.3:
            person["company"] = {"id": company, "name": f"Company {company}", "country": countries[company % 8]}
        result.append(person)
    return {"people": result}


if __name__ == "__main__":
    sys.stdout.write(json.dumps(people(int(sys.argv[1])), separators=(",", ":")))
