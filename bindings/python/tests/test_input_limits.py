"""Bounded work for nesting-heavy input: memory running out while parsing is OutOfMemoryError
(MAPPING_ENOMEM), not "malformed JSON at line 1, column 1", and leaves the graph as it was; a
maximum input size charges each array and object what parsing it costs, so text of small nested
arrays meets it long before its length does."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mapping

SPEC = {"entities": {"T": {"attributes": {"label": "string"}, "identification": "label"}},
        "mappings": {"t": {"entity": "T", "attributes": {"label": "label"}}}}

OOM = textwrap.dedent("""
    import resource, sys
    sys.path.insert(0, sys.argv[1])
    import mapping
    spec = {"entities": {"T": {"attributes": {"label": "string"}, "identification": "label"}},
            "mappings": {"t": {"entity": "T", "attributes": {"label": "label"}}}}
    payload = b"[" + b"{}," * 10_000_000 + b"{}]"  # 30 MB that jansson needs about 2.5 GB for
    ctx = mapping.Context(spec, parser="jansson")
    ctx.import_json("t", [{"label": "kept"}])
    limit = 1500 << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        ctx.import_json("t", payload)
        print("imported")
    except MemoryError as error:
        print(type(error).__name__, error.code, "memory ran out" in str(error))
    print([t["label"] for t in ctx.all("T")])
""")


def test_memory_running_out_while_parsing_is_reported_as_such():
    src = str(Path(mapping.__file__).resolve().parents[1])
    run = subprocess.run([sys.executable, "-c", OOM, src], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["OutOfMemoryError -21 True", "['kept']"]


def test_a_maximum_input_size_charges_arrays_and_objects():
    with mapping.Context(SPEC) as ctx:
        ctx.set_max_input_size(5_000)
        nested = b"[" + b"[]," * 400 + b"[]]"  # 1,204 bytes of text, 402 arrays: charged 7,636
        with pytest.raises(mapping.OutOfRangeError, match="402 arrays and objects"):
            ctx.import_json("t", nested)
        with pytest.raises(mapping.OutOfRangeError, match="402 arrays and objects"):
            ctx.import_chunked("t", nested, chunk_size=10)
        typical = ("[" + ",".join(f'{{"label": "a fairly ordinary label {i:04d}"}}' for i in range(60)) + "]").encode()
        assert len(typical) < 5_000 - 61 * 16  # charged within the maximum
        assert len(ctx.import_json("t", typical)) == 60
        with pytest.raises(mapping.OutOfRangeError, match="more than this context's maximum of 5000"):
            ctx.import_json("t", b" " * 5_001)
