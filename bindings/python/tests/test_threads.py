"""Four Python threads importing into and reading from one context at once."""
import threading

import mapping

PEOPLE, COMPANIES, ROUNDS = 40, 5, 25


def test_four_threads_share_one_context(ctx):
    errors = []

    def work(thread):
        try:
            for round_ in range(ROUNDS):
                people = [{"id": (i * 3 + thread + round_) % PEOPLE, "name": f"t{thread}",
                           "company": {"id": (i + round_) % COMPANIES}} for i in range(PEOPLE)]
                objects = ctx.import_json("person", {"data": {"people": people}})
                assert len(objects) == PEOPLE
                for person in objects[::7]:
                    assert person["name"].startswith("t")
                    assert person.related("company") is not None
                assert ctx.count("Person") == PEOPLE
        except Exception as error:  # reported below, with the thread that raised it
            errors.append((thread, error))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert ctx.count("Person") == PEOPLE and ctx.count("Company") == COMPANIES
    employees = [person for company in ctx.all("Company") for person in company.related("employees")]
    assert sorted(person["id"] for person in employees) == list(range(PEOPLE))
    assert all(person.related("company").related("employees").count(person) == 1 for person in employees)
