"""import_json(..., warn=True / strict=True): key paths that matched nothing in the whole payload and
representations without their identification become MappingWarnings, or in strict mode an error that
changes nothing."""
import json
import warnings

import pytest

import mapping

from conftest import FIXTURES

PAYLOAD = (FIXTURES / "people.json").read_bytes()


def spec_with_typo():
    spec = json.loads((FIXTURES / "people.spec.json").read_text())
    spec["mappings"]["person"]["attributes"]["city"] = "adress.city"  # misspelled: matches nothing
    return spec


def test_a_clean_import_warns_of_nothing():
    with mapping.Context(FIXTURES / "people.spec.json") as ctx, warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(ctx.import_json("person", PAYLOAD, warn=True, strict=True)) == 3


def test_a_misspelled_key_path_is_a_warning_naming_it():
    with mapping.Context(spec_with_typo()) as ctx:
        with pytest.warns(mapping.MappingWarning) as caught:
            ctx.import_json("person", PAYLOAD, warn=True)
        assert len(caught) == 1
        warning = caught[0].message
        assert (warning.kind, warning.mapping, warning.element, warning.where, warning.count) == \
            ("unmatched_key_path", "person", "Person.city", "adress.city", 3)
        assert 'key path "adress.city" of mapping "person" (Person.city) matched nothing' in str(warning)
        assert ctx.count("Person") == 2, "a warning changes nothing about the import"


def test_strict_makes_it_an_error_and_the_graph_stays_as_it_was():
    with mapping.Context(spec_with_typo()) as ctx:
        ctx.import_json("person", b'{"data": {"people": [{"id": 7, "address": {"city": "x"}}]}}')
        with pytest.raises(mapping.UnmappableError, match='strict import: key path "adress.city"') as raised:
            ctx.import_json("person", PAYLOAD, strict=True)
        assert raised.value.attribute == "Person.city"
        assert ctx.count("Person") == 1 and ctx.count("Phone") == 0


def test_representations_without_identification_are_counted():
    payload = b'{"data": {"people": [{"id": 1, "phones": [{"kind": "home"}, {"kind": "work"}]}]}}'
    with mapping.Context(FIXTURES / "people.spec.json") as ctx:
        with pytest.warns(mapping.MappingWarning) as caught:
            ctx.import_json("person", payload, warn=True)
        missing = [w.message for w in caught if w.message.kind == "missing_identification"]
        assert [(w.mapping, w.element, w.where, w.count) for w in missing] == [("phone", "Phone", "$.data.people[0].phones[0]", 2)]


def test_a_chunked_import_is_judged_on_the_whole_input():
    spec = {"entities": {"Item": {"attributes": {"id": "integer", "city": "string"}}},
            "mappings": {"item": {"entity": "Item", "attributes": {"id": "id", "city": "address.city"}}}}
    items = [{"id": n} for n in range(1, 6)] + [{"id": 6, "address": {"city": "Oslo"}}]
    with mapping.Context(spec) as ctx:
        assert ctx.import_chunked("item", json.dumps(items), chunk_size=2, strict=True) == 6
        with pytest.raises(mapping.UnmappableError, match="Item.city"):
            ctx.import_chunked("item", json.dumps(items[:5]), chunk_size=2, strict=True)


def test_warnings_are_issued_after_the_call_so_that_errors_mode_raises_them():
    """Under `-W error` (warnings as exceptions) the warning reaches the caller as an exception."""
    with mapping.Context(spec_with_typo()) as ctx, warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(mapping.MappingWarning, match="adress.city"):
            ctx.import_json("person", PAYLOAD, warn=True)


def test_key_paths_a_mapping_lists_as_optional_warn_only_when_asked():
    spec = spec_with_typo()
    spec["mappings"]["person"]["optional"] = ["city"]  # an API's optional property, absent from this payload
    with mapping.Context(spec) as ctx:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ctx.import_json("person", PAYLOAD, warn=True, strict=True)  # neither a warning nor an error
        with pytest.warns(mapping.MappingWarning) as caught:
            ctx.import_json("person", PAYLOAD, warn="all")
        assert [(w.message.element, w.message.where) for w in caught] == [("Person.city", "adress.city")]
        with pytest.raises(ValueError, match="warn='some': expected True, False or 'all'"):
            ctx.import_json("person", PAYLOAD, warn="some")


def test_optional_names_what_the_mapping_maps():
    spec = spec_with_typo()
    spec["mappings"]["person"]["optional"] = ["citty"]
    with pytest.raises(mapping.SpecError, match='"citty" in "optional" is not an attribute or relationship this mapping maps: '
                                                'did you mean "city"?') as raised:
        mapping.Context(spec)
    assert raised.value.path == "$.mappings.person.optional"
