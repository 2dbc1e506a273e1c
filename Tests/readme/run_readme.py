#!/usr/bin/env python3
"""Runs the code blocks of a Markdown file (README.md) as a reader would: every ```c block compiled
against .build/release/libmapping.so with the header in include/ and run, every ```python block run
with PYTHONPATH=bindings/python/src; both from the repository root. Other blocks (```sh) are not run.
A block fails when it does not compile, exits non-zero or writes to stderr. Run by
`make test-readme`; prints "readme: N passed, N failed"."""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBDIR = ROOT / ".build" / "release"
BLOCK = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
CC = os.environ.get("CC", "cc")
TIMEOUT = 120


def blocks(text):
    """(language, first line of the code, code) for every fenced block."""
    for match in BLOCK.finditer(text):
        yield match.group(1), text.count("\n", 0, match.start(2)) + 1, match.group(2)


def run(command, **kwargs):
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT, **kwargs)


def c_block(code, folder):
    source, binary = folder / "block.c", folder / "block"
    source.write_text(code)
    built = run([CC, "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{ROOT / 'include'}", "-o", str(binary),
                 str(source), f"-L{LIBDIR}", "-lmapping", f"-Wl,-rpath,{LIBDIR}"])
    if built.returncode != 0:
        return "does not compile", built
    return None, run([str(binary)])


def python_block(code, folder):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python" / "src"))
    return None, run([sys.executable, "-c", code], env=env)


RUNNERS = {"c": c_block, "python": python_block}


def main():
    path = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "README.md")
    passed = failed = 0
    for language, line, code in blocks(path.read_text(encoding="utf-8")):
        runner = RUNNERS.get(language)
        if runner is None:
            continue
        with tempfile.TemporaryDirectory() as folder:
            problem, result = runner(code, Path(folder))
        if problem is None and result.returncode != 0:
            problem = f"exits with {result.returncode}"
        elif problem is None and result.stderr:
            problem = "writes to stderr"
        if problem:
            failed += 1
            print(f"readme: FAILED: the {language} block at {path.name}:{line} {problem}\n{result.stdout}{result.stderr}",
                  file=sys.stderr)
        else:
            passed += 1
            print(f"== {path.name}:{line} ({language}): {len(result.stdout.splitlines())} lines of output")
    print(f"readme: {passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
