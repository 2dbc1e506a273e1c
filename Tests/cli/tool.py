"""What the tool's tests share: where the tool and the fixtures are, and running it."""
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests" / "fixtures"
TOOL = os.environ.get("MAPPING_CLI", str(ROOT / "tools" / "cli" / ".build" / "release" / "mapping-tool"))
SPEC = str(FIXTURES / "people.spec.json")
PEOPLE = str(FIXTURES / "people.json")


def run(*args, ok=True):
    result = subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True, timeout=60)
    if ok:
        assert result.returncode == 0, result.stderr
    return result
