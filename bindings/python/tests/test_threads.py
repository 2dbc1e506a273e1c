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


def test_a_transaction_belongs_to_its_thread(ctx):
    """Another thread's calls wait for the transaction (BusyError past the busy timeout) and never
    see it halfway; a failing call there cannot roll it back."""
    ctx.set_busy_timeout(0.05)
    outcome = {}

    def other_thread():
        try:
            ctx.count("Person")
            outcome["count"] = "answered"
        except mapping.BusyError as error:
            outcome["count"] = error
        try:
            ctx.import_json("person", {"data": {"people": [{"id": "not a number"}]}})
        except mapping.MappingError as error:
            outcome["import"] = error

    with ctx.transaction():
        ctx.import_json("person", {"data": {"people": [{"id": 1, "name": "Ada"}]}})
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        ctx.import_json("person", {"data": {"people": [{"id": 2, "name": "Grace"}]}})
    assert isinstance(outcome["count"], mapping.BusyError)
    assert isinstance(outcome["import"], mapping.BusyError)
    assert ctx.count("Person") == 2  # nothing of the transaction was rolled back by the other thread

    # With time to wait, the other thread's failing call runs after the commit and changes nothing.
    ctx.set_busy_timeout(None)
    outcome.clear()
    ctx.begin()
    ctx.import_json("person", {"data": {"people": [{"id": 3}]}})
    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join(0.2)
    assert thread.is_alive(), "the other thread waits while the transaction is open"
    ctx.commit()
    thread.join()
    assert outcome["count"] == "answered"
    assert isinstance(outcome["import"], mapping.WrongTypeError)
    assert ctx.count("Person") == 3
