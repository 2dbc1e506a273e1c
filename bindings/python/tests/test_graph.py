"""The graph as Core Data keeps it (issue 4), through the binding: changes with inverses, delete
rules, cardinality, order, sub-entities, transactions, orphan deletion."""
import pytest

import mapping

SPEC = {
    "entities": {
        "Person": {"attributes": {"id": "integer", "name": "string"}, "identification": "id",
                   "relationships": {
                       "company": {"entity": "Company", "inverse": "employees"},
                       "phones": {"entity": "Phone", "toMany": True, "ordered": True, "inverse": "owner", "deleteRule": "cascade"},
                       "friends": {"entity": "Person", "toMany": True, "inverse": "friends"},
                       "spouse": {"entity": "Person", "inverse": "spouse"},
                       "badges": {"entity": "Badge", "toMany": True, "maxCount": 2, "inverse": "holder"}}},
        "Employee": {"parent": "Person", "attributes": {"salary": "integer"}},
        "Company": {"attributes": {"id": "integer", "name": "string"}, "identification": "id",
                    "relationships": {"employees": {"entity": "Person", "toMany": True, "inverse": "company", "deleteRule": "deny"}}},
        "Committee": {"attributes": {"id": "integer"}, "identification": "id",
                      "relationships": {"board": {"entity": "Person", "toMany": True, "minCount": 1}}},
        "Phone": {"attributes": {"number": "string"}, "identification": "number",
                  "relationships": {"owner": {"entity": "Person", "inverse": "phones"},
                                    "next": {"entity": "Phone", "deleteRule": "cascade"}}},
        "Badge": {"attributes": {"name": "string"}, "identification": "name",
                  "relationships": {"holder": {"entity": "Person", "inverse": "badges", "deleteRule": "noAction"}}},
    },
    "mappings": {
        "person": {"entity": "Person", "attributes": {"id": "id", "name": "name"},
                   "relationships": {"phones": {"mapping": "phone"}, "badges": {"mapping": "badge"}}},
        "employee": {"entity": "Employee", "attributes": {"id": "id", "name": "name", "salary": "salary"}},
        "phone": {"entity": "Phone", "attributes": {"number": None}},
        "badge": {"entity": "Badge", "attributes": {"name": None}},
    },
}


@pytest.fixture
def ctx():
    with mapping.Context(SPEC) as context:
        yield context


def test_inverses_follow_every_change(ctx):
    ada, bob = ctx.create("Person", id=1, name="Ada"), ctx.create("Person", id=2, name="Bob")
    acme = ctx.create("Company", {"id": 10, "name": "Acme"})
    ada.set_related("company", acme)
    assert acme.related("employees") == [ada]
    acme.add_related("employees", bob)
    assert bob.related("company") == acme and acme.related("employees") == [ada, bob]
    acme.remove_related("employees", ada)
    assert ada.related("company") is None
    bob.set_related("company", None)
    assert acme.related("employees") == []
    ada.set_related("friends", [bob])  # many-to-many, self-inverse
    assert bob.related("friends") == [ada]
    ada.set_related("spouse", bob)
    carl = ctx.create("Person", id=3)
    carl.set_related("spouse", bob)  # one-to-one: Ada loses her spouse
    assert ada.related("spouse") is None and bob.related("spouse") == carl
    ctx.delete(bob)  # nullify: Ada's friends and Carl's spouse lose Bob
    assert ada.related("friends") == [] and carl.related("spouse") is None
    with pytest.raises(mapping.StaleObjectError):
        bob["name"]


def test_cascade_chain_with_a_cycle_and_deny(ctx):
    ada = ctx.import_json("person", {"id": 1, "phones": ["a", "b"]})[0]
    a, b = ada.related("phones")
    b.set_related("next", a)  # phones a -> (owner) ada -> phones ... and b.next = a: a cycle of cascades
    a.set_related("next", b)
    ctx.delete(ada)
    assert ctx.count("Phone") == 0 and ctx.count("Person") == 0
    acme = ctx.create("Company", id=10)
    eve = ctx.create("Person", id=5)
    eve.set_related("company", acme)
    with pytest.raises(mapping.DeniedError) as caught:
        ctx.delete(acme)
    assert caught.value.attribute == "Company.employees"
    assert acme.is_live() and eve.related("company") == acme and acme.related("employees") == [eve]


def test_no_action_leaves_the_other_side_and_readers_skip_it(ctx):
    ada = ctx.import_json("person", {"id": 1, "badges": ["gold"]})[0]
    ctx.delete(ada)
    assert ctx.get("Badge", "gold").related("holder") is None


def test_cardinality_is_checked_at_commit_and_rolls_back(ctx):
    ada = ctx.import_json("person", {"id": 1, "badges": ["a", "b"]})[0]
    with pytest.raises(mapping.ConstraintError) as caught:
        ctx.import_json("person", {"id": 1, "name": "changed", "badges": ["a", "b", "c"]})
    assert caught.value.attribute == "Person.badges"
    assert ada["name"] is None and ctx.count("Badge") == 2
    with pytest.raises(mapping.ConstraintError):
        ada.add_related("badges", ctx.create("Badge", name="c"))
    assert len(ada.related("badges")) == 2
    with pytest.raises(mapping.ConstraintError):  # minCount 1 on a new committee's board
        ctx.create("Committee", id=1)
    assert ctx.count("Committee") == 0
    with ctx.transaction():  # within a transaction the counts are checked at the end
        committee = ctx.create("Committee", id=1)
        committee.set_related("board", [ada])
    assert committee.related("board") == [ada]
    with pytest.raises(mapping.ConstraintError):
        with ctx.transaction():
            committee.remove_related("board", ada)
    assert committee.related("board") == [ada]


def test_ordered_insert_and_move(ctx):
    ada = ctx.import_json("person", {"id": 1, "phones": ["a", "b", "c"]})[0]
    d = ctx.create("Phone", number="d")
    ada.add_related("phones", d, index=1)
    assert [p["number"] for p in ada.related("phones")] == ["a", "d", "b", "c"]
    ada.move_related("phones", 3, 0)
    assert [p["number"] for p in ada.related("phones")] == ["c", "a", "d", "b"]
    ada.add_related("phones", ctx.get("Phone", "b"), index=0)  # already there: moved
    assert [p["number"] for p in ada.related("phones")] == ["b", "c", "a", "d"]
    with pytest.raises(mapping.OutOfRangeError):
        ada.move_related("phones", 0, 9)
    with pytest.raises(mapping.MisuseError):
        ada.add_related("friends", ada, index=0)  # not ordered


def test_sub_entities_share_identity_and_fetches(ctx):
    ctx.import_json("person", {"id": 1, "name": "Ada"})
    ctx.import_json("employee", {"id": 2, "name": "Bob", "salary": 10})
    assert [p["id"] for p in ctx.fetch("Person")] == [1, 2]
    assert [p["id"] for p in ctx.fetch("Person", subentities=False)] == [1]
    assert ctx.get("Person", 2).entity == "Employee"
    with pytest.raises(mapping.ConstraintError):
        ctx.create("Employee", id=1)  # the identity map is shared with Person


def test_changes_coerce_and_keep_identities_unique(ctx):
    ada = ctx.create("Person", id="7", name="Ada")
    assert ada["id"] == 7 and ctx.get("Person", 7) == ada
    ada["id"] = 8
    assert ctx.get("Person", 8) == ada and ctx.get("Person", 7) is None
    ctx.create("Person", id=9)
    with pytest.raises(mapping.ConstraintError):
        ada["id"] = 9
    assert ada["id"] == 8 and ctx.get("Person", 8) == ada
    with pytest.raises(mapping.WrongTypeError):
        ada["id"] = "abc"
    ada["name"] = None
    assert ada["name"] is None


def test_transactions_commit_and_roll_back(ctx):
    ada = ctx.create("Person", id=1, name="Ada")
    with pytest.raises(RuntimeError):
        with ctx.transaction():
            ada["name"] = "changed"
            ctx.create("Person", id=2)
            ctx.import_json("person", {"id": 3})
            raise RuntimeError("abort")
    assert ada["name"] == "Ada" and ctx.count("Person") == 1
    with pytest.raises(mapping.WrongTypeError):
        with ctx.transaction():
            ctx.create("Person", id=2)
            ctx.import_json("person", {"id": "x"})  # fails: the whole transaction is rolled back
    assert ctx.count("Person") == 1
    ctx.begin()
    with pytest.raises(mapping.MisuseError):
        ctx.begin()
    ctx.create("Person", id=4)
    ctx.commit()
    assert ctx.count("Person") == 2
    with pytest.raises(mapping.MisuseError):
        ctx.rollback()


def test_a_failure_caught_inside_a_transaction_leaves_nothing_committed_behind_it(ctx):
    ada = ctx.create("Person", id=1, name="Ada")
    with pytest.raises(mapping.WrongTypeError, match="nothing was committed: the transaction was rolled back"):
        with ctx.transaction():
            ada["name"] = "b"
            try:
                ctx.import_json("person", {"id": "x"})
            except mapping.WrongTypeError as error:
                assert error.message.endswith("(the open transaction was rolled back)")
            with pytest.raises(mapping.MisuseError, match="takes no more changes: end it with rollback"):
                ada["name"] = "c"  # refused: it would have been committed on its own
            assert ada["name"] == "Ada"  # reads see the graph as before the transaction
    assert ada["name"] == "Ada" and ctx.count("Person") == 1
    ctx.begin()  # the failed transaction was ended: a new one opens
    ctx.create("Person", id=2)
    try:
        ctx.create("Person", id=2)  # a second object with one identity: fails, rolls back
    except mapping.MappingError:
        pass
    ctx.rollback()  # ends the failed transaction quietly
    assert ctx.count("Person") == 1
    ada["name"] = "d"  # no transaction: committed at once
    assert ada["name"] == "d"


def test_orphan_deletion_P1_to_P6(ctx):
    ctx.import_json("person", [{"id": 1}, {"id": 2}, {"id": 3, "phones": ["x"]}])
    # P1/P2: what the import touched (mapped, or nested) stays; the rest of the scope goes.
    ctx.import_json("person", [{"id": 1, "phones": ["p"]}], orphans=("Person", None))
    assert [p["id"] for p in ctx.fetch("Person")] == [1]
    ctx.import_json("phone", [], orphans=("Phone", "owner == nil"))  # P4: the predicate limits the scope; P5: empty
    assert [p["number"] for p in ctx.fetch("Phone")] == ["p"]
    with pytest.raises(mapping.WrongTypeError):  # P5: a failed import deletes nothing
        ctx.import_json("person", [{"id": "bad"}], orphans=("Person", None))
    assert ctx.count("Person") == 1


def test_orphans_reached_through_relationships_and_skipped_objects_P3_P6():
    spec = {
        "entities": {"Post": {"attributes": {"id": "integer", "updated": "integer"}, "identification": "id",
                              "relationships": {"tags": {"entity": "Tag", "toMany": True, "inverse": "posts"}}},
                     "Tag": {"attributes": {"name": "string"}, "identification": "name",
                             "relationships": {"posts": {"entity": "Post", "toMany": True, "inverse": "tags"}}}},
        "mappings": {"post": {"entity": "Post", "modificationAttribute": "updated",
                              "attributes": {"id": "id", "updated": "updated"},
                              "relationships": {"tags": {"mapping": "tag"}}},
                     "tag": {"entity": "Tag", "attributes": {"name": None}}},
    }
    with mapping.Context(spec) as ctx:
        ctx.import_json("post", [{"id": 1, "updated": 5, "tags": ["a", "b"]}, {"id": 2, "updated": 1, "tags": ["c"]}])
        ctx.create("Tag", name="orphaned")
        # P3: tags are reached through the posts' relationship; "orphaned" is not referenced.
        # P6: post 1 is unmodified (skipped) and its tags a, b still count as present.
        ctx.import_json("post", [{"id": 1, "updated": 5, "tags": ["a"]}, {"id": 2, "updated": 2, "tags": ["c"]}],
                        orphans=("Tag", None))
        assert sorted(tag["name"] for tag in ctx.fetch("Tag")) == ["a", "b", "c"]
        ctx.create("Tag", name="lonely")
        # P4: a scope predicate keeps tags still attached to some post.
        ctx.import_json("post", [{"id": 2, "updated": 3, "tags": []}], orphans=("Tag", "posts.@count == 0"))
        assert sorted(tag["name"] for tag in ctx.fetch("Tag")) == ["a", "b"]
