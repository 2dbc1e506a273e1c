#!/usr/bin/env python3
"""Adds up the results `make test` printed (XCTest, the C and ABI suites, pytest) into one closing
line, "tests: N passed, N failed", so that a CI log ends with the whole count."""
import re
import sys

passed = failed = 0
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
for index, line in enumerate(lines):
    # XCTest: the totals follow the line that closes the top-level suite.
    if re.match(r"Test Suite '(All tests|Selected tests)' (passed|failed)", line) and index + 1 < len(lines):
        match = re.search(r"Executed (\d+) tests?, with (\d+) failures?", lines[index + 1])
        if match:
            passed += int(match.group(1)) - int(match.group(2))
            failed += int(match.group(2))
        continue
    # The C and ABI suites: "suite: N passed, N failed".
    match = re.match(r"^[\w ]+: (\d+) passed, (\d+) failed$", line)
    if match:
        passed += int(match.group(1))
        failed += int(match.group(2))
        continue
    # pytest's closing line: "12 passed in 0.9s", "1 failed, 11 passed in 1.2s".
    if re.match(r"^=*\s*(\d+ (passed|failed|errors?)(, )?)+.* in [\d.]+s", line):
        for count, kind in re.findall(r"(\d+) (passed|failed|errors?)", line):
            if kind == "passed":
                passed += int(count)
            else:
                failed += int(count)
print(f"tests: {passed} passed, {failed} failed")
sys.exit(1 if failed or passed == 0 else 0)
