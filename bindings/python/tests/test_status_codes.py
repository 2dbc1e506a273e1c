"""The status codes have one source, the library: the header (as the C compiler reads it), the
library (mapping_error_name over every code), the binding's table and constants (`_ffi`) and its
exception classes (`errors`) agree on every code and name; and the table is built the way the
module says (from 0 down until the library names no status), failing loudly when it cannot be."""
import re

import pytest

from mapping import _ffi, errors

from test_abi_tables import header_text, truth  # noqa: F401  (truth: the header probe, a fixture)

# Far past both ends of the codes there are, so that a code named out of order would be seen.
SCAN = range(-2 * _ffi.STATUS_LIMIT, _ffi.STATUS_LIMIT)


def header_statuses(truth):
    """mapping_status's constants, name to value, the values as compiled."""
    body = re.search(r"typedef enum mapping_status \{(.*?)\}", header_text(), re.S)
    assert body, "enum mapping_status not found in the header"
    names = re.findall(r"^\s*(MAPPING_[A-Z0-9_]+)\s*=", body.group(1), re.M)
    return {name: truth["constants"][name] for name in names}


def library_statuses():
    """Every code the library names, asked one by one: it is not told where to stop."""
    named = {}
    for code in SCAN:
        name = _ffi.error_name(code)
        if _ffi.names_a_status(name):
            named[name.decode("ascii")] = code
    return named


def disagreements(header, library, table, constants, classes):
    """What one source says of a status that another does not. `constants` is the binding's
    constants by header name, `classes` the exception class by name."""
    found = []
    for source, said in (("library", library), ("binding's table", table), ("binding's constants", constants)):
        if said != header:
            found.append(f"{source} {said} is not the header's {header}")
    failures = {name: code for name, code in header.items() if name != "MAPPING_OK"}
    if set(classes) != set(failures):
        found.append(f"error classes for {sorted(classes)}, statuses {sorted(failures)}")
    for name, cls in classes.items():
        if name in failures and cls.code != failures[name]:
            found.append(f"{cls.__name__}.code is {cls.code}, {name} is {failures[name]}")
    return found


def binding_constants(header):
    return {name: getattr(_ffi, name[len("MAPPING_"):]) for name in header if hasattr(_ffi, name[len("MAPPING_"):])}


def test_header_library_and_binding_agree_on_every_status(truth):
    header = header_statuses(truth)
    assert len(header) == 22 and header["MAPPING_OK"] == 0 and header["MAPPING_EPARSE"] == -4
    assert disagreements(header, library_statuses(), _ffi.STATUS_CODES, binding_constants(header),
                         errors.CLASSES) == []
    # The classes own the codes: no class outside the table claims one, and a failure with a code
    # comes back as its class.
    def every_subclass(cls):
        return [cls] + [grand for sub in cls.__subclasses__() for grand in every_subclass(sub)]
    claiming = {cls for cls in every_subclass(errors.MappingError) if "code" in vars(cls)}
    assert claiming == set(errors.CLASSES.values())
    for name, code in header.items():
        if code:
            raised = errors.error_from_status(code)
            assert type(raised) is errors.CLASSES[name] and raised.code == code


def test_the_comparison_sees_a_disagreement(truth):
    """The test above can fail: each way a source could drift is reported."""
    header = header_statuses(truth)
    library = library_statuses()
    constants = binding_constants(header)
    assert disagreements(header, dict(library, MAPPING_ENEW=-22), library, constants, errors.CLASSES)
    assert disagreements(header, library, {**library, "MAPPING_EPARSE": -5}, constants, errors.CLASSES)
    assert disagreements(header, library, library, {k: v for k, v in constants.items() if k != "MAPPING_ENOMEM"},
                         errors.CLASSES)
    fewer = {name: cls for name, cls in errors.CLASSES.items() if name != "MAPPING_EBUSY"}
    assert disagreements(header, library, library, constants, fewer)
    renamed = dict(errors.CLASSES, MAPPING_EBUSY=errors.StoreError)  # StoreError's code is ESTORE's
    assert disagreements(header, library, library, constants, renamed)


def test_an_unknown_code_has_no_status_name():
    """mapping.h: "MAPPING_E?" for an unknown code. The table stops at the first such answer."""
    past_the_end = min(_ffi.STATUS_CODES.values()) - 1
    for code in (past_the_end, 1, -_ffi.STATUS_LIMIT, 2**31 - 1, -2**31):
        assert _ffi.error_name(code) == b"MAPPING_E?"
        assert not _ffi.names_a_status(_ffi.error_name(code))
    assert not _ffi.names_a_status(None) and not _ffi.names_a_status(b"") and not _ffi.names_a_status(b"MAPPING_")
    assert _ffi.names_a_status(b"MAPPING_OK") and _ffi.names_a_status(b"MAPPING_ENOMEM")


def test_a_code_without_a_class_raises_mapping_error_with_its_code():
    raised = errors.error_from_status(-99)
    assert type(raised) is errors.MappingError and raised.code == -99


def test_the_errcheck_raises_what_errors_made():
    assert _ffi._error_factory is errors.error_from_status


def fake_names(answers):
    """An error_name that answers from a dict of code to bytes (None where absent)."""
    return lambda code: answers.get(code)


def test_the_table_is_asked_of_the_library_until_it_names_none(monkeypatch):
    monkeypatch.setattr(_ffi, "error_name", fake_names({0: b"MAPPING_OK", -1: b"MAPPING_ERROR", -2: b"MAPPING_ENEW",
                                                        -4: b"MAPPING_ELATER"}))
    assert _ffi._status_codes() == {"MAPPING_OK": 0, "MAPPING_ERROR": -1, "MAPPING_ENEW": -2}
    monkeypatch.setattr(_ffi, "error_name", fake_names({0: b"MAPPING_OK", -1: b"MAPPING_ERROR", -2: b"MAPPING_E?"}))
    assert _ffi._status_codes() == {"MAPPING_OK": 0, "MAPPING_ERROR": -1}


@pytest.mark.parametrize("answers, message", [
    ({code: b"MAPPING_OK" if code == 0 else f"MAPPING_E{-code}".encode() for code in range(-300, 1)},
     "names every status code"),
    ({0: b"MAPPING_OK", -1: b"MAPPING_ERROR", -2: b"MAPPING_ERROR"}, "names both -1 and -2 MAPPING_ERROR"),
    ({0: b"MAPPING_E?"}, "does not name 0 MAPPING_OK"),
    ({0: b"MAPPING_ERROR"}, "does not name 0 MAPPING_OK"),
])
def test_a_library_whose_table_cannot_be_read_is_an_import_error(monkeypatch, answers, message):
    monkeypatch.setattr(_ffi, "error_name", fake_names(answers))
    with pytest.raises(ImportError, match=message):
        _ffi._status_codes()


def test_a_status_the_library_lacks_is_an_import_error():
    with pytest.raises(ImportError, match="has no status MAPPING_ENOPE"):
        _ffi.status_code("MAPPING_ENOPE")
    assert _ffi.status_code("MAPPING_EPARSE") == _ffi.EPARSE == -4
