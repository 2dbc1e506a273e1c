"""The PostgreSQL store is a plugin: libmapping.so does not link libpq, and opening a postgresql://
store without the plugin (or without libpq) is UnavailableError saying what is missing — never a
failure to load the library itself. Run in a child process: the plugin is looked for once per
process."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import mapping
from mapping import _lib

LIBRARY = _lib.lib._name
PLUGIN = os.path.join(os.path.dirname(LIBRARY), "libmapping-postgres.so")

CHILD = textwrap.dedent("""
    import mapping
    spec = {"entities": {"User": {"attributes": {"id": "integer"}, "identification": "id"}},
            "mappings": {"user": {"entity": "User", "attributes": {"id": "id"}}}}
    with mapping.Context(spec) as ctx:  # the library loads and works without the plugin
        ctx.import_json("user", '[{"id": 1}]')
        assert ctx.count("User") == 1
    try:
        mapping.Context(spec, store="postgresql:///nowhere?host=/nonexistent")
    except mapping.UnavailableError as error:
        print("unavailable:", error)
    except mapping.MappingError as error:
        print("other:", type(error).__name__, error)
""")


def run_child(plugin_path):
    package = os.path.dirname(os.path.dirname(os.path.abspath(mapping.__file__)))
    path = os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, MAPPING_POSTGRES_PLUGIN=plugin_path, MAPPING_LIBRARY=LIBRARY, PYTHONPATH=path)
    result = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    if "has no PostgreSQL store" in result.stdout:
        pytest.skip("this build has no PostgreSQL store (MAPPING_POSTGRES=0)")
    return result.stdout.strip()


def test_libmapping_does_not_link_libpq():
    with open(LIBRARY, "rb") as file:
        assert b"libpq.so" not in file.read(), "libmapping.so names libpq: it must load it only through the plugin"


def test_a_missing_plugin_is_unavailable_and_named(tmp_path):
    missing = str(tmp_path / "libmapping-postgres.so")
    output = run_child(missing)
    assert output.startswith("unavailable:"), output
    assert "PostgreSQL store is not available" in output and "libmapping-postgres.so" in output, output


def test_a_plugin_that_is_not_one_is_unavailable(tmp_path):
    fake = tmp_path / "libmapping-postgres.so"
    fake.write_bytes(b"not a shared object")
    output = run_child(str(fake))
    assert output.startswith("unavailable:") and "cannot load its plugin" in output, output


@pytest.mark.skipif(not os.path.exists(PLUGIN), reason="this build has no PostgreSQL store (MAPPING_POSTGRES=0)")
def test_the_built_plugin_loads_and_reaches_libpq(tmp_path):
    # The plugin loads and libpq answers: connecting to a server that is not there is a store
    # error carrying libpq's own message, not an unavailable store.
    output = run_child(PLUGIN)
    assert output.startswith("other: StoreError"), output
    assert "cannot connect to PostgreSQL" in output, output


def test_a_plugin_whose_library_is_missing_says_which(tmp_path):
    # A plugin found but needing a library the machine lacks (as the real one needs libpq): the
    # message names that library. Made here: a plugin linked to a library then removed.
    compiler = shutil.which(os.environ.get("CC", "cc"))
    if compiler is None:
        pytest.fail("a C compiler is needed to make the stand-in plugin")
    (tmp_path / "gone.c").write_text("int gone_answer(void) { return 42; }\n")
    (tmp_path / "plugin.c").write_text("int gone_answer(void);\nint cpq_abi_version(void) { return gone_answer(); }\n")
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(tmp_path / "libgone-pq.so"), str(tmp_path / "gone.c")], check=True)
    plugin = tmp_path / "libmapping-postgres.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(plugin), str(tmp_path / "plugin.c"),
                    f"-L{tmp_path}", "-lgone-pq"], check=True)
    (tmp_path / "libgone-pq.so").unlink()
    output = run_child(str(plugin))
    assert output.startswith("unavailable:") and "libgone-pq.so" in output, output
