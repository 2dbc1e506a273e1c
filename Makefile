# libmapping — build, install, demo and test. Building installs what it needs when missing (`deps`:
# pkg-config, libjansson-dev, libsqlite3-dev, libsimdjson-dev and libpq-dev through apt); `make test`
# also installs what the tests need (`test-deps`: valgrind and python3-venv through apt; pytest,
# setuptools and wheel through pip; `test-postgres`: postgresql). MAPPING_NO_DEPS=1 installs nothing.
# MAPPING_SIMDJSON=0 builds without the simdjson parser, MAPPING_POSTGRES=0 without the PostgreSQL
# store (and neither installs what it would need). `make install` honours PREFIX and DESTDIR.

SWIFT       ?= swift
CC          ?= cc
PYTHON      ?= python3
ROOT        := $(CURDIR)
RELEASE_DIR := $(ROOT)/.build/release
LIB         := $(RELEASE_DIR)/libmapping.so
# The simdjson parser, loaded by libmapping.so at run time when asked for (libmapping.so itself does
# not need libsimdjson, so it loads on a machine without it).
PLUGIN      := libmapping-simdjson.so
# The PostgreSQL store's plugin, the one library that links libpq, loaded on the first postgresql://
# open (libpq brings OpenSSL, Kerberos, LDAP and 20 more libraries libmapping.so does without).
PG_PLUGIN   := libmapping-postgres.so
VERSION     := $(shell sed -n 's/^\#define MAPPING_VERSION_STRING "\(.*\)"/\1/p' include/mapping.h)
SONAME      := libmapping.so.$(firstword $(subst ., ,$(VERSION)))
REALNAME    := libmapping.so.$(VERSION)
EXPORTS     := $(ROOT)/.build/mapping.map
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
export MAPPING_LIBRARY := $(LIB)
MAPPING_SIMDJSON ?= 1
export MAPPING_SIMDJSON
# The PostgreSQL store (libpq): MAPPING_POSTGRES=0 builds without it (and installs no libpq-dev).
MAPPING_POSTGRES ?= 1
export MAPPING_POSTGRES
# The manifest's local-only compiler flags (cross-module optimization; the simdjson plugin's hidden
# visibility; Package.swift's localFlags says why a dependent builds without them):
# every build here has them, as `make bench-check` measures. MAPPING_LOCAL_FLAGS=0 builds as a
# Swift package depending on this one does.
MAPPING_LOCAL_FLAGS ?= 1
export MAPPING_LOCAL_FLAGS
MAPPING_NO_DEPS ?= 0
PREFIX      ?= /usr/local
DESTDIR     ?=
# The tool's product is mapping-tool (the engine package already has a product named mapping); it is
# installed as `mapping`.
CLI_BIN     := tools/cli/.build/release/mapping-tool
# Every file `make install` writes, as `make uninstall` removes them.
INSTALLED   := $(addprefix $(DESTDIR)$(PREFIX)/,lib/$(REALNAME) lib/$(SONAME) lib/libmapping.so lib/$(PLUGIN) lib/$(PG_PLUGIN) \
                 include/mapping.h lib/pkgconfig/mapping.pc bin/mapping)

.PHONY: all deps test-deps release debug cli install uninstall examples demo test test-layers test-swift test-c test-python \
        test-abi test-postgres test-install test-wheel test-readme test-swift-package test-cli test-tsan test-asan fuzz bench \
        bench-check clean

all: release

# Installs the Debian packages listed in $$missing (one `apt-get update` first), unless MAPPING_NO_DEPS=1.
APT_INSTALL = if [ -z "$$missing" ]; then :; \
  elif [ "$(MAPPING_NO_DEPS)" = 1 ]; then echo "MAPPING_NO_DEPS=1: not installing$$missing"; \
  else echo "installing with apt:$$missing"; $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; fi

# What building the library needs.
deps:
	@missing=; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	pkg-config --exists jansson 2>/dev/null || missing="$$missing libjansson-dev"; \
	pkg-config --exists sqlite3 2>/dev/null || missing="$$missing libsqlite3-dev"; \
	if [ "$(MAPPING_SIMDJSON)" = 1 ] && [ ! -f /usr/include/simdjson.h ]; then missing="$$missing libsimdjson-dev"; fi; \
	if [ "$(MAPPING_POSTGRES)" = 1 ] && [ ! -f /usr/include/postgresql/libpq-fe.h ]; then missing="$$missing libpq-dev"; fi; \
	$(APT_INSTALL)

# What the tests need besides: valgrind (test-c), python3-venv (test-wheel, for Debian's python3),
# pytest (test-python), setuptools and wheel (test-wheel).
test-deps: deps
	@missing=; \
	command -v valgrind >/dev/null 2>&1 || missing="$$missing valgrind"; \
	$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || missing="$$missing python3-venv"; \
	$(APT_INSTALL)
	@missing=$$($(PYTHON) -c 'import importlib.util as u; print(" ".join(m for m in ("pytest", "setuptools", "wheel") if not u.find_spec(m)))'); \
	if [ -z "$$missing" ]; then :; \
	elif [ "$(MAPPING_NO_DEPS)" = 1 ]; then echo "MAPPING_NO_DEPS=1: not installing $$missing"; \
	else echo "installing with pip: $$missing"; $(PYTHON) -m pip install -q $$missing; fi

# The release library links the Swift runtime statically (-static-stdlib; SwiftPM's
# --static-swift-stdlib is ignored for a .so) and exports only the mapping_* entry points. The
# simdjson plugin is C++ only, so it is compiled here directly, with the flags of the CSimdJSON
# target in Package.swift: a SwiftPM link would name the Swift runtime (or, static, carry 6 MB of it).
# The C targets' debug information is DWARF 4: Debian's valgrind (callgrind, `make bench-check`)
# cannot read clang's default DWARF 5 from several C files in one library.
release: deps
	@mkdir -p .build
	@printf '{\n  global: mapping_*;\n  local: *;\n};\n' > $(EXPORTS)
	$(SWIFT) build -c release --product mapping -Xswiftc -static-stdlib -Xcc -gdwarf-4 \
	  -Xlinker --version-script=$(EXPORTS) -Xlinker -soname=$(SONAME)
	@ln -sf libmapping.so $(RELEASE_DIR)/$(SONAME)
	@if [ "$(MAPPING_SIMDJSON)" = 1 ]; then $(MAKE) -s $(RELEASE_DIR)/$(PLUGIN); fi
	@if [ "$(MAPPING_POSTGRES)" = 1 ]; then $(MAKE) -s $(RELEASE_DIR)/$(PG_PLUGIN); fi

# The PostgreSQL plugin is C; compiled here directly for the same reason as the simdjson one.
$(RELEASE_DIR)/$(PG_PLUGIN): Sources/CPostgresPlugin/plugin.c Sources/CPostgresLoader/include/mapping_pq.h
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -O2 -o $@ $< -lpq

CXX ?= c++
$(RELEASE_DIR)/$(PLUGIN): Sources/CSimdJSON/csimdjson.cpp Sources/CSimdJSON/include/csimdjson.h
	$(CXX) -shared -fPIC -O2 -std=c++17 -fvisibility=hidden -DSIMDJSON_THREADS_ENABLED=1 -ISources/CSimdJSON/include \
	  -o $@ $< -lsimdjson

# The debug library, unstripped and unoptimised: .build/debug/libmapping.so (and its simdjson plugin).
debug: deps
	$(SWIFT) build --product mapping
	@if [ "$(MAPPING_SIMDJSON)" = 1 ]; then $(SWIFT) build --product mapping-simdjson; fi
	@if [ "$(MAPPING_POSTGRES)" = 1 ]; then $(SWIFT) build --product mapping-postgres; fi

# The command-line tool `mapping` (its own package in tools/cli): $(CLI_BIN), with the PostgreSQL
# plugin beside it (the tool links the engine statically, so it looks for the plugin there; an
# installed tool, in $(PREFIX)/bin, finds it in $(PREFIX)/lib: the loader also looks in ../lib).
cli: deps
	$(SWIFT) build -c release --package-path tools/cli --product mapping-tool
	@if [ "$(MAPPING_POSTGRES)" = 1 ]; then $(MAKE) -s $(RELEASE_DIR)/$(PG_PLUGIN) && \
	  cp $(RELEASE_DIR)/$(PG_PLUGIN) $(dir $(CLI_BIN))$(PG_PLUGIN); fi

# $(PREFIX)/lib/libmapping.so.X.Y.Z (stripped; .build/release keeps its symbols) with the links
# libmapping.so.X and libmapping.so, $(PREFIX)/include/mapping.h, $(PREFIX)/lib/pkgconfig/mapping.pc
# and, when tools/cli is there, $(PREFIX)/bin/mapping. DESTDIR stages the whole tree elsewhere.
install: release cli
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/$(REALNAME)
	strip --strip-unneeded $(DESTDIR)$(PREFIX)/lib/$(REALNAME)
	ln -sfn $(REALNAME) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sfn $(REALNAME) $(DESTDIR)$(PREFIX)/lib/libmapping.so
	@for plugin in $(PLUGIN) $(PG_PLUGIN); do if [ -f $(RELEASE_DIR)/$$plugin ]; then \
	  echo "install -m 644 $(RELEASE_DIR)/$$plugin $(DESTDIR)$(PREFIX)/lib/$$plugin"; \
	  install -m 644 $(RELEASE_DIR)/$$plugin $(DESTDIR)$(PREFIX)/lib/$$plugin; \
	  strip --strip-unneeded $(DESTDIR)$(PREFIX)/lib/$$plugin; fi; done
	install -m 644 include/mapping.h $(DESTDIR)$(PREFIX)/include/mapping.h
	@requires="jansson sqlite3"; \
	if readelf -d $(LIB) | grep -q 'NEEDED.*libsimdjson'; then requires="$$requires simdjson"; fi; \
	plugins=""; \
	if [ -f $(RELEASE_DIR)/$(PLUGIN) ]; then plugins="$(PLUGIN):libsimdjson"; fi; \
	if [ -f $(RELEASE_DIR)/$(PG_PLUGIN) ]; then plugins="$${plugins:+$$plugins }$(PG_PLUGIN):libpq"; fi; \
	echo "writing $(DESTDIR)$(PREFIX)/lib/pkgconfig/mapping.pc (Requires.private: $$requires; plugins: $$plugins)"; \
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e "s|@REQUIRES_PRIVATE@|$$requires|" \
	  -e "s|@PLUGINS@|$$plugins|" mapping.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/mapping.pc
	install -D -m 755 $(CLI_BIN) $(DESTDIR)$(PREFIX)/bin/mapping
	strip $(DESTDIR)$(PREFIX)/bin/mapping
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f $(INSTALLED)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

examples: release
	$(MAKE) -s -C examples/c LIBDIR=$(RELEASE_DIR)

demo: examples
	@for example in examples/c/bin/*; do echo "== $$example"; $$example examples/data || exit 1; done
	@for example in examples/python/[0-9]*.py; do echo "== $$example"; \
	  PYTHONPATH=bindings/python/src $(PYTHON) $$example examples/data || exit 1; done

test: test-layers release test-deps test-swift test-abi test-c test-python test-postgres test-install test-wheel test-readme \
      test-swift-package test-cli test-tsan test-asan

# The targets' layers (fast, first): each imports only targets before it in Package.swift's list and
# declares what it imports; the stores never name MappingContext (Tests/layers/check.py), then the
# check's own tests on a fake package. test-deps for pytest.
test-layers: test-deps
	$(PYTHON) Tests/layers/check.py && $(PYTHON) -m pytest -q Tests/layers

# The Swift suite runs once per parser: every import test must pass on both backends.
test-swift: deps
	$(SWIFT) test --disable-swift-testing
	@if [ "$(MAPPING_SIMDJSON)" = 1 ]; then echo "== the Swift suite again, on the simdjson parser"; \
	  MAPPING_TEST_PARSER=simdjson $(SWIFT) test --disable-swift-testing --skip-build; fi

# The exports against the header, and the header's comments against clang's documentation checks.
test-abi: examples
	bash Tests/abi/check_exports.sh $(LIB) include/mapping.h
	echo '#include <mapping.h>' | $(dir $(shell command -v $(SWIFT)))clang -fsyntax-only -x c -Iinclude \
	  -Wdocumentation -Wdocumentation-unknown-command -Werror -
	@echo "mapping.h: clang -Wdocumentation clean"

test-c: release test-deps
	$(MAKE) -s -C Tests/c LIBDIR=$(RELEASE_DIR) run memcheck

test-python: examples test-deps
	cd bindings/python && $(PYTHON) -m pytest -q tests --ignore=tests/test_postgres.py
	@for example in examples/python/[0-9]*.py; do \
	  PYTHONPATH=bindings/python/src $(PYTHON) $$example examples/data > /dev/null || exit 1; done
	@echo "python examples: all ran"

# The PostgreSQL store against a real server: Debian's postgresql installed when missing, a cluster
# made in a temporary folder and started on a Unix socket there, the C and Python tests, the server
# stopped (Tests/postgres/run.sh). Nothing to do in a build without the store (MAPPING_POSTGRES=0).
test-postgres: release cli test-deps
	@if [ "$(MAPPING_POSTGRES)" = 1 ]; then \
	  missing=; ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing=" postgresql"; \
	  $(APT_INSTALL); \
	  MAPPING_CLI=$(ROOT)/$(CLI_BIN) PYTHON=$(PYTHON) bash Tests/postgres/run.sh; \
	else echo "MAPPING_POSTGRES=0: no PostgreSQL store to test"; fi

# `make install` into a temporary DESTDIR: the files and links, a C program built with
# `pkg-config --cflags --libs mapping` against the staged copy, then `make uninstall` removing it all.
test-install: release
	MAKE="$(MAKE)" bash Tests/install/test_install.sh

# `pip wheel ./bindings/python` (a platform wheel carrying libmapping.so) installed into a fresh venv,
# then `import mapping` from another folder with no MAPPING_LIBRARY; the checkout stays clean.
test-wheel: release test-deps
	PYTHON=$(PYTHON) bash Tests/install/test_wheel.sh

# Every ```c and ```python block of README.md, compiled and run from the repository root.
test-readme: release
	$(PYTHON) Tests/readme/run_readme.py README.md

# docs/swift.md's tutorial built and run as a package of its own depending on this one, by path and
# by version tag (a clone of HEAD, tagged), with exactly the output the document shows; then that
# version with the local-only flags is refused (Tests/swift-package/run.sh). Debug builds, kept in
# .build-swift-package. The script unsets MAPPING_LOCAL_FLAGS: a dependent's build has none.
test-swift-package: deps
	SWIFT=$(SWIFT) bash Tests/swift-package/run.sh

# The command-line tool, every subcommand run as a user runs it (Tests/cli).
test-cli: cli test-deps
	MAPPING_CLI=$(ROOT)/$(CLI_BIN) $(PYTHON) -m pytest -q Tests/cli

# The threaded test once more under ThreadSanitizer (a separate build folder).
test-tsan: deps
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --disable-swift-testing --scratch-path .build-tsan --sanitize=thread --filter ConcurrencyTests

# The C suites against an AddressSanitizer build of the library (its C and C++ parts also under
# UndefinedBehaviorSanitizer; Swift on Linux has no UBSan), in its own build folder.
test-asan: deps
	$(SWIFT) build --product mapping --sanitize=address --scratch-path .build-asan \
	  -Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined
	@if [ "$(MAPPING_SIMDJSON)" = 1 ]; then $(SWIFT) build --product mapping-simdjson --sanitize=address \
	  --scratch-path .build-asan -Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined; fi
	$(MAKE) -s -C Tests/c LIBDIR=$(ROOT)/.build-asan/debug ASAN_CC=$(dir $(shell command -v $(SWIFT)))clang asan

# libFuzzer drivers (Tests/fuzz) against the AddressSanitizer build: FUZZ_SECONDS per driver (60 by
# default), or until FUZZ_RUNS executions when that comes first; FUZZ_DRIVERS to pick some (import
# spec predicate paths response chunks store observe).
# Not in `make test`. LeakSanitizer is on: a leak is a finding.
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_DRIVERS ?=
# The library is built with coverage instrumentation (its own build folder), so libFuzzer is guided
# by the library's branches, not only the drivers'. Optimized (FUZZ_CONFIG=release, the default): an
# unoptimized Swift build runs each call 4-6 times slower under ASan; FUZZ_CONFIG=debug builds it
# unoptimized, for exact line numbers when reducing a finding.
FUZZ_CONFIG ?= release
fuzz: deps
	$(SWIFT) build -c $(FUZZ_CONFIG) --product mapping --sanitize=address --scratch-path .build-fuzzlib \
	  -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp -Xcc -fsanitize=undefined -Xcc -fsanitize=fuzzer-no-link \
	  -Xcxx -fsanitize=undefined -Xcxx -fsanitize=fuzzer-no-link
	@if [ "$(MAPPING_SIMDJSON)" = 1 ]; then $(SWIFT) build -c $(FUZZ_CONFIG) --product mapping-simdjson --sanitize=address \
	  --scratch-path .build-fuzzlib -Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined; fi
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) bash Tests/fuzz/run.sh $(ROOT)/.build-fuzzlib/$(FUZZ_CONFIG) \
	  $(dir $(shell command -v $(SWIFT)))clang $(FUZZ_DRIVERS)

# Benchmarks never run in `make test`. Lookup costs at 10k and 1M objects, side by side in one run.
# Every workload is generated here (bench/people.py, fixed seeds), except bench/payloads.py's real API
# payloads, measured only when MAPPING_BENCH_DATA names their folder (`make bench
# MAPPING_BENCH_DATA=~/payloads`); without it that part says it is skipped and bench/payloads.md
# is left as it is. The Swift baselines of bench/imports.py need the simdjson build. orjson and msgspec
# (pip; the Python baselines) are installed when missing, unless MAPPING_NO_DEPS=1. bash with pipefail:
# a failing `| tee` fails the run.
MAPPING_BENCH_DATA ?=
export MAPPING_BENCH_DATA
bench: SHELL := /bin/bash
bench: .SHELLFLAGS := -o pipefail -c
bench: release
	@mkdir -p bench/bin
	@$(PYTHON) -c 'import orjson' 2>/dev/null || [ "$(MAPPING_NO_DEPS)" = 1 ] || \
	  { echo "installing with pip: orjson"; $(PYTHON) -m pip install -q orjson; }
	@$(PYTHON) -c 'import msgspec' 2>/dev/null || [ "$(MAPPING_NO_DEPS)" = 1 ] || \
	  { echo "installing with pip: msgspec"; $(PYTHON) -m pip install -q msgspec; }
	@if [ "$(MAPPING_SIMDJSON)" = 1 ]; then echo "$(SWIFT) build -c release --package-path bench/swift"; \
	  $(SWIFT) build -c release --package-path bench/swift; \
	else echo "MAPPING_SIMDJSON=0: no Swift baselines (bench/swift needs simdjson)"; fi
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -o bench/bin/lookup bench/lookup.c \
	  -L$(RELEASE_DIR) -lmapping -Wl,-rpath,$(RELEASE_DIR)
	bench/bin/lookup | tee bench/lookup.md
	$(PYTHON) bench/bulk.py | tee bench/bulk.md
	$(PYTHON) bench/imports.py | tee bench/RESULTS.md
	@if [ -n "$(MAPPING_BENCH_DATA)" ]; then echo "$(PYTHON) bench/payloads.py | tee bench/payloads.md"; \
	  $(PYTHON) bench/payloads.py | tee bench/payloads.md; \
	else $(PYTHON) bench/payloads.py; fi
	$(PYTHON) bench/store.py | tee bench/store.md
	$(PYTHON) bench/open_curve.py | tee bench/open_curve.md
	$(PYTHON) bench/store_large.py | tee bench/store_large.md
	@if [ "$(MAPPING_POSTGRES)" = 1 ]; then \
	  missing=; ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing=" postgresql"; $(APT_INSTALL); \
	  echo "$(PYTHON) bench/scaling.py | tee bench/scaling.md"; $(PYTHON) bench/scaling.py | tee bench/scaling.md; \
	else echo "MAPPING_POSTGRES=0: no PostgreSQL scaling bench"; fi
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -o bench/bin/memory bench/memory.c \
	  -L$(RELEASE_DIR) -lmapping -Wl,-rpath,$(RELEASE_DIR)
	$(MAKE) -s bench/data/people_1m.json
	bench/bin/memory bench/people.spec.json bench/data/people_1m.json | tee bench/memory.md

# Instruction counts (callgrind: deterministic) of a fixed 10k-person import on each parser, against
# bench/instructions.json; fails when one grows by more than 3%. UPDATE=1 rewrites the baseline.
bench-check: release
	@missing=; command -v valgrind >/dev/null 2>&1 || missing=" valgrind"; $(APT_INSTALL)
	@mkdir -p bench/bin
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -o bench/bin/instructions bench/instructions.c \
	  -L$(RELEASE_DIR) -lmapping -Wl,-rpath,$(RELEASE_DIR)
	$(PYTHON) bench/check_instructions.py bench/bin/instructions bench/people.spec.json bench/instructions.json \
	  $(if $(UPDATE),--update)

# The 1M-record people payload (235 MB), generated once and never committed.
bench/data/people_1m.json:
	@mkdir -p bench/data
	$(PYTHON) bench/people.py 1000000 > $@

clean:
	rm -rf .build .build-tsan .build-asan .build-fuzzlib .build-fuzz .build-swift-package tools/cli/.build examples/c/bin Tests/c/bin Tests/c/bin-asan bench/bin
