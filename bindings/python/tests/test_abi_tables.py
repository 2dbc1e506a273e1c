"""The binding's copies of the ABI's tables against the header they copy.

Every enum constant of include/mapping.h (status codes, types, parsers, events, chunk formats, flags)
and the numeric macros the binding uses must have the same value in `mapping._ffi` (its name without
the `MAPPING_` prefix); every status code but MAPPING_OK must have exactly one MappingError subclass;
every struct the binding declares must have the header's fields, offsets and size; and the library
itself must name every status code the header declares. The header's values come from the C
compiler (a probe program compiled against the header), not from parsing numbers out of the text.
"""
import ctypes
import json
import os
import re
import shutil
import subprocess

import pytest

from mapping import _ffi, _lib, errors

HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "..", "include", "mapping.h")
# The binding's structs and the header's typedefs they mirror.
STRUCTS = {"mapping_error": _ffi.ErrorRecord, "mapping_import_options": _ffi.ImportOptions,
           "mapping_response": _ffi.Response}
# Macros (not enum constants) the binding copies.
MACROS = ["MAPPING_NO_OBJECT", "MAPPING_NUL_TERMINATED", "MAPPING_APPEND", "MAPPING_WAIT_FOREVER",
          "MAPPING_IMPORT_OPTIONS_VERSION", "MAPPING_RESPONSE_VERSION"]


def header_text():
    assert os.path.exists(HEADER), f"the header is missing at {HEADER}"
    with open(HEADER) as file:
        return file.read()


def enum_constants(text):
    """The names declared inside the header's typedef'd enums."""
    names = []
    for body in re.findall(r"typedef enum \w+ \{(.*?)\}", text, re.S):
        names += re.findall(r"^\s*(MAPPING_[A-Z0-9_]+)\s*=", body, re.M)
    return names


def struct_fields(text, name):
    match = re.search(r"typedef struct " + name + r" \{(.*?)\} " + name + ";", text, re.S)
    assert match, f"struct {name} not found in the header"
    body = re.sub(r"/\*.*?\*/", "", match.group(1), flags=re.S)
    return re.findall(r"(\w+)\s*;", body)


@pytest.fixture(scope="module")
def truth(tmp_path_factory):
    """The header's values as the C compiler sees them."""
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
    assert compiler, "no C compiler to compile the header probe with"
    text = header_text()
    constants = enum_constants(text) + MACROS
    lines = ["#include <mapping.h>", "#include <stddef.h>", "#include <stdio.h>", "int main(void) {",
             '  printf("{\\"constants\\": {");']
    for index, name in enumerate(constants):
        lines.append(f'  printf("%s\\"{name}\\": %lld", "{"," if index else ""}", (long long){name});')
    lines.append('  printf("}, \\"structs\\": {");')
    for index, name in enumerate(STRUCTS):
        fields = struct_fields(text, name)
        lines.append(f'  printf("%s\\"{name}\\": {{\\"size\\": %zu, \\"fields\\": [", "{"," if index else ""}", sizeof({name}));')
        for position, field in enumerate(fields):
            lines.append(f'  printf("%s[\\"{field}\\", %zu]", "{"," if position else ""}", offsetof({name}, {field}));')
        lines.append('  printf("]}");')
    lines += ['  printf("}}");', "  return 0;", "}"]
    folder = tmp_path_factory.mktemp("abi")
    source, binary = folder / "probe.c", folder / "probe"
    source.write_text("\n".join(lines) + "\n")
    include = os.path.dirname(os.path.abspath(HEADER))
    subprocess.run([compiler, "-std=c99", "-I", include, "-o", str(binary), str(source)], check=True)
    return json.loads(subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout)


def test_every_header_constant_has_the_same_value_in_the_binding(truth):
    drift = []
    for name, value in truth["constants"].items():
        short = name[len("MAPPING_"):]
        if not hasattr(_ffi, short):
            drift.append(f"{name} = {value} is missing from mapping._ffi as {short}")
            continue
        mine = getattr(_ffi, short)
        # size_t macros (NUL_TERMINATED, APPEND) print as -1 through long long.
        if mine != value and ctypes.c_longlong(mine).value != value:
            drift.append(f"{name} is {value} in the header but {mine} in mapping._ffi")
    assert not drift, "\n".join(drift)
    assert len(truth["constants"]) > 40, "the probe found too few constants: the header's enums were not parsed"


def test_the_binding_needs_the_headers_major_version(truth):
    assert _lib.EXPECTED_MAJOR == truth["constants"].get("MAPPING_VERSION_MAJOR", _lib.EXPECTED_MAJOR)
    assert _ffi.version_number() // 10000 == _lib.EXPECTED_MAJOR


def test_every_status_code_has_one_error_class_and_a_name_in_the_library(truth):
    codes = {name: value for name, value in truth["constants"].items()
             if name == "MAPPING_OK" or re.fullmatch(r"MAPPING_E[A-Z]+|MAPPING_ERROR", name)}
    assert len(codes) == 22, sorted(codes)
    classes = {}
    for cls in [errors.MappingError] + errors.MappingError.__subclasses__():
        classes.setdefault(cls.code, []).append(cls.__name__)
    for name, value in codes.items():
        assert _ffi.error_name(value).decode() == name, f"the library names {value} {_ffi.error_name(value)!r}"
        if value != 0:
            assert len(classes.get(value, [])) == 1, f"{name}: error classes {classes.get(value)}"
    assert set(classes) == set(codes.values()) - {0}, "an error class has a code the header lacks"


@pytest.mark.parametrize("name", sorted(STRUCTS))
def test_every_struct_has_the_headers_fields_offsets_and_size(truth, name):
    expected = truth["structs"][name]
    struct = STRUCTS[name]
    mine = [(field, getattr(struct, field).offset) for field, _ in struct._fields_]
    assert mine == [tuple(pair) for pair in expected["fields"]], f"{name}: {mine} vs {expected['fields']}"
    assert ctypes.sizeof(struct) == expected["size"]
