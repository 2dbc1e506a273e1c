#!/usr/bin/env bash
# `make test-postgres`: starts a throwaway PostgreSQL server (server.sh), runs the C test, the
# Python tests of the PostgreSQL store (and the differential tests of stores read as touched) and
# the `mapping` tool's (MAPPING_CLI) against it, and stops it whatever happens. The release library and the tool must be built (make does that first).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
dir=$(mktemp -d /tmp/mapping-pg.XXXXXX)
trap 'bash "$root/Tests/postgres/server.sh" stop "$dir"' EXIT
# fsync off: the tests kill clients, never the server, and a synced commit only costs time here.
uri=$(SERVER_OPTIONS="-c fsync=off" bash Tests/postgres/server.sh start "$dir")
export MAPPING_TEST_POSTGRES=$uri MAPPING_REQUIRE_POSTGRES=1
lib=$root/.build/release
mkdir -p .build/postgres-test
${CC:-cc} -std=c11 -O1 -g -Wall -Wextra -Werror -pthread -Iinclude -o .build/postgres-test/test_postgres \
  Tests/postgres/test_postgres.c -L"$lib" -lmapping -Wl,-rpath,"$lib" -pthread
.build/postgres-test/test_postgres Tests/fixtures
${PYTHON:-python3} -m pytest -q Tests/cli/test_cli_postgres.py
cd bindings/python
${PYTHON:-python3} -m pytest -q tests/test_postgres.py
# The differential tests of a store read as touched, on PostgreSQL (test-python runs them on SQLite).
${PYTHON:-python3} -m pytest -q tests/test_store_faults.py -k postgresql
