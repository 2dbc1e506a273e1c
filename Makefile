# libmapping — build, demo and test. `make demo` and `make test` install what they need
# (libjansson-dev, libsqlite3-dev and libsimdjson-dev through apt when missing; pytest through pip).
# MAPPING_SIMDJSON=0 builds without the simdjson parser (and installs no simdjson).

SWIFT       ?= swift
CC          ?= cc
PYTHON      ?= python3
ROOT        := $(CURDIR)
RELEASE_DIR := $(ROOT)/.build/release
LIB         := $(RELEASE_DIR)/libmapping.so
SONAME      := libmapping.so.0
EXPORTS     := $(ROOT)/.build/mapping.map
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
export MAPPING_LIBRARY := $(LIB)
MAPPING_SIMDJSON ?= 1
export MAPPING_SIMDJSON

.PHONY: all deps release examples demo test test-swift test-c test-python test-abi test-tsan test-asan fuzz bench bench-check clean

all: release

deps:
	@if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists jansson; then \
	  echo "libjansson-dev not found: installing it with apt"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq pkg-config libjansson-dev; \
	fi
	@if ! pkg-config --exists sqlite3; then \
	  echo "libsqlite3-dev not found: installing it with apt"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libsqlite3-dev; \
	fi
	@if [ "$(MAPPING_SIMDJSON)" = 1 ] && [ ! -f /usr/include/simdjson.h ]; then \
	  echo "libsimdjson-dev not found: installing it with apt"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libsimdjson-dev; \
	fi
	@$(PYTHON) -c 'import pytest' 2>/dev/null || $(PYTHON) -m pip install -q pytest

# The release library links the Swift runtime statically (-static-stdlib; SwiftPM's
# --static-swift-stdlib is ignored for a .so) and exports only the mapping_* entry points.
release: deps
	@mkdir -p .build
	@printf '{\n  global: mapping_*;\n  local: *;\n};\n' > $(EXPORTS)
	$(SWIFT) build -c release --product mapping -Xswiftc -static-stdlib \
	  -Xlinker --version-script=$(EXPORTS) -Xlinker -soname=$(SONAME)
	@ln -sf libmapping.so $(RELEASE_DIR)/$(SONAME)

examples: release
	$(MAKE) -s -C examples/c LIBDIR=$(RELEASE_DIR)

demo: examples
	@for example in examples/c/bin/*; do echo "== $$example"; $$example examples/data || exit 1; done
	@for example in examples/python/[0-9]*.py; do echo "== $$example"; \
	  PYTHONPATH=bindings/python/src $(PYTHON) $$example examples/data || exit 1; done

test: release test-swift test-abi test-c test-python test-tsan test-asan

# The Swift suite runs once per parser: every import test must pass on both backends.
test-swift: deps
	$(SWIFT) test --disable-swift-testing
	@if [ "$(MAPPING_SIMDJSON)" = 1 ]; then echo "== the Swift suite again, on the simdjson parser"; \
	  MAPPING_TEST_PARSER=simdjson $(SWIFT) test --disable-swift-testing --skip-build; fi

test-abi: examples
	bash Tests/abi/check_exports.sh $(LIB) include/mapping.h

test-c: release
	$(MAKE) -s -C Tests/c LIBDIR=$(RELEASE_DIR) run memcheck

test-python: examples
	cd bindings/python && $(PYTHON) -m pytest -q tests
	@for example in examples/python/[0-9]*.py; do \
	  PYTHONPATH=bindings/python/src $(PYTHON) $$example examples/data > /dev/null || exit 1; done
	@echo "python examples: all ran"

# The threaded test once more under ThreadSanitizer (a separate build folder).
test-tsan: deps
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --disable-swift-testing --scratch-path .build-tsan --sanitize=thread --filter ConcurrencyTests

# The C suites against an AddressSanitizer build of the library (its C and C++ parts also under
# UndefinedBehaviorSanitizer; Swift on Linux has no UBSan), in its own build folder.
test-asan: deps
	$(SWIFT) build --product mapping --sanitize=address --scratch-path .build-asan \
	  -Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined
	$(MAKE) -s -C Tests/c LIBDIR=$(ROOT)/.build-asan/debug ASAN_CC=$(dir $(shell command -v $(SWIFT)))clang asan

# libFuzzer drivers (Tests/fuzz) against the AddressSanitizer build: FUZZ_SECONDS per driver (60 by
# default); FUZZ_DRIVERS to pick some (import spec predicate paths response chunks). Not in `make test`.
FUZZ_SECONDS ?= 60
FUZZ_DRIVERS ?=
# The library is built with coverage instrumentation (its own build folder), so libFuzzer is guided
# by the library's branches, not only the drivers'.
fuzz: deps
	$(SWIFT) build --product mapping --sanitize=address --scratch-path .build-fuzzlib \
	  -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp -Xcc -fsanitize=undefined -Xcc -fsanitize=fuzzer-no-link \
	  -Xcxx -fsanitize=undefined -Xcxx -fsanitize=fuzzer-no-link
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash Tests/fuzz/run.sh $(ROOT)/.build-fuzzlib/debug \
	  $(dir $(shell command -v $(SWIFT)))clang $(FUZZ_DRIVERS)

# Benchmarks never run in `make test`. Lookup costs at 10k and 1M objects, side by side in one run.
bench: release
	@mkdir -p bench/bin
	$(SWIFT) build -c release --package-path bench/swift
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -o bench/bin/lookup bench/lookup.c \
	  -L$(RELEASE_DIR) -lmapping -Wl,-rpath,$(RELEASE_DIR)
	bench/bin/lookup | tee bench/lookup.md
	python3 bench/bulk.py | tee bench/bulk.md
	python3 bench/imports.py | tee bench/RESULTS.md
	python3 bench/payloads.py | tee bench/payloads.md
	python3 bench/store.py | tee bench/store.md
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -o bench/bin/memory bench/memory.c \
	  -L$(RELEASE_DIR) -lmapping -Wl,-rpath,$(RELEASE_DIR)
	$(MAKE) -s bench/data/people_1m.json
	bench/bin/memory bench/people.spec.json bench/data/people_1m.json | tee bench/memory.md

# Instruction counts (callgrind: deterministic) of a fixed 10k-person import on each parser, against
# bench/instructions.json; fails when one grows by more than 3%. UPDATE=1 rewrites the baseline.
bench-check: release
	@command -v valgrind >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq valgrind; }
	@mkdir -p bench/bin
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -o bench/bin/instructions bench/instructions.c \
	  -L$(RELEASE_DIR) -lmapping -Wl,-rpath,$(RELEASE_DIR)
	$(PYTHON) bench/check_instructions.py bench/bin/instructions bench/people.spec.json bench/instructions.json \
	  $(if $(UPDATE),--update)

# The 1M-record people payload (235 MB), generated once and never committed.
bench/data/people_1m.json:
	@mkdir -p bench/data
	python3 bench/people.py 1000000 > $@

clean:
	rm -rf .build .build-tsan .build-asan .build-fuzzlib .build-fuzz examples/c/bin Tests/c/bin Tests/c/bin-asan bench/bin
