"""Finds and loads libmapping.so, and checks that its major version is the one this binding speaks."""
from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path
from typing import Iterator, List

EXPECTED_MAJOR = 0


def _candidates() -> Iterator[str]:
    explicit = os.environ.get("MAPPING_LIBRARY")
    if explicit:
        yield explicit
        return
    here = Path(__file__).resolve().parent
    if len(here.parents) > 3:  # a package installed near the root (pip --target /tmp/x) has fewer
        yield str(here.parents[3] / ".build" / "release" / "libmapping.so")  # a repository checkout
    yield str(here / "libmapping.so")                                          # installed beside the package
    found = ctypes.util.find_library("mapping")
    if found:
        yield found


def load() -> ctypes.CDLL:
    tried: List[str] = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as error:
            tried.append(f"{path} ({error})")
            continue
        lib.mapping_version_number.argtypes = []
        lib.mapping_version_number.restype = ctypes.c_int
        major = lib.mapping_version_number() // 10000
        if major != EXPECTED_MAJOR:
            raise ImportError(f"{path} is libmapping {major}.x; this binding needs {EXPECTED_MAJOR}.x")
        return lib
    raise ImportError("libmapping.so not found (set MAPPING_LIBRARY or run `make release`); tried: "
                      + ", ".join(tried))


lib: ctypes.CDLL = load()
