#!/usr/bin/env bash
# The Python package as a user installs it: `pip wheel ./bindings/python` must give a platform wheel
# (py3-none-linux_*) that carries libmapping.so, and the simdjson plugin when the build made it;
# installed into a fresh venv, `import mapping` must work from another folder with neither
# MAPPING_LIBRARY nor PYTHONPATH set, loading the library inside the package, on every parser.
# `pip install ./bindings/python` likewise (into a --target folder). The checkout must be left as it
# was. Run by `make test-wheel`; prints "wheel: N passed, N failed".
# Offline: pip builds with --no-build-isolation (setuptools and wheel come from `make test-deps`)
# and installs with --no-index.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/bindings/python/pyproject.toml")
unset MAPPING_LIBRARY PYTHONPATH
export PIP_ROOT_USER_ACTION=ignore
pip_quiet=(--quiet --disable-pip-version-check --no-build-isolation --no-deps)
suite=wheel
source "$root/Tests/install/checks.sh"

# Everything git sees in the working tree, ignored files included, to compare before and after.
tree_state() { git -C "$root" status --porcelain --ignored --untracked-files=all -- bindings/python | grep -v '__pycache__\|\.pytest_cache' ; }

# Imports the installed package with PYTHON ($1; PYTHONPATH $2 if given) from a folder outside the
# checkout and uses it: a spec, an import (on each parser the build has), a value read back, the
# library loaded from inside the package.
use_installed() {
  (cd "$work/elsewhere" && env ${2:+PYTHONPATH="$2"} PLUGIN="$plugin" "$1" - <<'PY'
import json, os, sys
import mapping
from mapping import _lib

package = os.path.dirname(mapping.__file__)
assert _lib.lib._name == os.path.join(package, "libmapping.so"), f"loaded {_lib.lib._name}, not the packaged library"
spec = {"entities": {"User": {"attributes": {"id": "integer", "login": "string"}, "identification": "id"}},
        "mappings": {"user": {"entity": "User", "attributes": {"id": "id", "login": "login"}}}}
parsers = ["jansson"] + (["simdjson"] if os.environ["PLUGIN"] else [])
assert mapping.available_parsers() == parsers, (mapping.available_parsers(), parsers)
for parser in parsers:
    with mapping.Context(spec, parser=parser) as ctx:
        users = ctx.import_json("user", json.dumps([{"id": 7, "login": "ada"}, {"id": 7, "login": "ada"}]))
        assert len(users) == 2 and ctx.count("User") == 1, (len(users), ctx.count("User"))
        assert ctx.get("User", 7)["login"] == "ada"
print("ok", mapping.__name__, "from", package, "with", parsers)
PY
  ) > "$work/use.log" 2>&1 || { cat "$work/use.log" >&2; return 1; }
}

# The simdjson parser's plugin is shipped (and must work) when the build made it; so is the
# PostgreSQL store's.
plugin=
if [ -f "$root/.build/release/libmapping-simdjson.so" ]; then plugin=libmapping-simdjson.so; fi
pg_plugin=
if [ -f "$root/.build/release/libmapping-postgres.so" ]; then pg_plugin=libmapping-postgres.so; fi
mkdir -p "$work/dist" "$work/elsewhere"
before=$(tree_state)

check "pip wheel ./bindings/python" "$python" -m pip wheel "${pip_quiet[@]}" -w "$work/dist" "$root/bindings/python"
wheel=$(ls "$work"/dist/mapping-*.whl 2>/dev/null | head -n 1)
check "the wheel is tagged py3-none-linux_* (got $(basename "${wheel:-none}"))" \
  bash -c "[[ '$(basename "${wheel:-none}")' == mapping-$version-py3-none-linux_*.whl ]]"
for shipped in libmapping.so $plugin $pg_plugin; do
  check "the wheel carries mapping/$shipped" \
    "$python" -c "import sys, zipfile; sys.exit('mapping/$shipped' not in zipfile.ZipFile(sys.argv[1]).namelist())" "$wheel"
done

check "python -m venv" "$python" -m venv "$work/venv"
check "pip install the wheel into the venv" "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel"
check "import mapping from another folder, in the venv" use_installed "$work/venv/bin/python"

check "pip install ./bindings/python" \
  "$python" -m pip install "${pip_quiet[@]}" --target "$work/target" "$root/bindings/python"
check "import mapping from another folder, from the pip install" use_installed "$python" "$work/target"

after=$(tree_state)
check "the checkout is left as it was: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | tr '\n' ' ')" \
  test "$before" = "$after"

finish
