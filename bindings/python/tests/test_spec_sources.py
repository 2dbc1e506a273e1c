"""A spec is told by its type: a pathlib.Path (any path-like) is a file; bytes, bytearray and a dict
are the spec; a str is JSON text when it starts with "{", and otherwise still a file's path, with a
DeprecationWarning saying to pass pathlib.Path."""
import json
import warnings

import pytest

import mapping

from conftest import FIXTURES

SPEC_FILE = FIXTURES / "people.spec.json"


def opens(source):
    with mapping.Context(source) as context:
        return context.count("Person") == 0 and context.attributes("Company") == ["id", "name"]


def test_a_path_is_read_with_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert opens(SPEC_FILE)


def test_json_text_dicts_and_bytes_are_the_spec_with_no_warning(spec):
    text = json.dumps(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for source in (text, "\n  " + text, text.encode(), bytearray(text.encode()), spec):
            assert opens(source), type(source)


def test_a_str_path_still_works_and_warns_to_pass_a_path():
    with pytest.warns(DeprecationWarning, match=r"pass pathlib\.Path\(") as caught:
        assert opens(str(SPEC_FILE))
    assert len(caught) == 1
    assert caught[0].filename == __file__, "the warning points at the caller of Context()"


def test_malformed_json_text_is_a_spec_error_not_a_missing_file():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(mapping.SpecError):
            mapping.Context(' {"entities": {')


def test_a_missing_file_is_a_file_error_either_way(tmp_path):
    with pytest.raises(FileNotFoundError):
        mapping.Context(tmp_path / "absent.json")
    with pytest.warns(DeprecationWarning), pytest.raises(FileNotFoundError):
        mapping.Context(str(tmp_path / "absent.json"))
