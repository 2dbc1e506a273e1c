#!/usr/bin/env bash
# `make install` staged in a temporary DESTDIR, checked as a user of the installed library would
# meet it: the files and links, a stripped library, pkg-config finding the staged copy, a C program
# (installed.c) built with `pkg-config --cflags --libs mapping` and run against the staged library,
# then `make uninstall` removing every file. Run by `make test-install`; prints
# "install: N passed, N failed" and exits non-zero on a failure.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
make=${MAKE:-make}
prefix=/usr/local
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/stage
lib=$stage$prefix/lib
version=$(sed -n 's/^#define MAPPING_VERSION_STRING "\(.*\)"/\1/p' "$root/include/mapping.h")
major=${version%%.*}
real=$lib/libmapping.so.$version
suite=install
source "$root/Tests/install/checks.sh"

# make install / uninstall into the stage, quietly unless it fails.
stage_make() {
  "$make" -s -C "$root" "$1" DESTDIR="$stage" PREFIX="$prefix" > "$work/$1.log" 2>&1 || { cat "$work/$1.log" >&2; return 1; }
}

# The staged files and links, relative to the stage.
staged() { (cd "$stage" && find . \( -type f -o -type l \) | sort); }

expected_files() {
  printf '%s\n' ".$prefix/bin/mapping" ".$prefix/include/mapping.h" ".$prefix/lib/libmapping.so" ".$prefix/lib/libmapping.so.$major" \
    ".$prefix/lib/libmapping.so.$version" ".$prefix/lib/pkgconfig/mapping.pc"
  if [ "${MAPPING_SIMDJSON:-1}" = 1 ]; then echo ".$prefix/lib/libmapping-simdjson.so"; fi
  if [ "${MAPPING_POSTGRES:-1}" = 1 ]; then echo ".$prefix/lib/libmapping-postgres.so"; fi
}

check "make install DESTDIR=... PREFIX=$prefix" stage_make install
check "the staged files are exactly: $(expected_files | tr '\n' ' ')" \
  diff <(expected_files | sort) <(staged)

# The library, its links the usual way round, its SONAME, stripped with the same exports.
check "libmapping.so.$version is a file" test -f "$real" -a ! -L "$real"
check "libmapping.so.$major -> libmapping.so.$version" test "$(readlink "$lib/libmapping.so.$major")" = "libmapping.so.$version"
check "libmapping.so -> libmapping.so.$version" test "$(readlink "$lib/libmapping.so")" = "libmapping.so.$version"
check "the SONAME is libmapping.so.$major" bash -c "readelf -d '$real' | grep -q 'SONAME.*\[libmapping.so.$major\]'"
check "the installed library is stripped" bash -c "! readelf -S '$real' | grep -q '\.symtab'"
check ".build/release/libmapping.so keeps its symbols" bash -c "readelf -S '$root/.build/release/libmapping.so' | grep -q '\.symtab'"
check "stripping kept every export" \
  diff <(nm -D --defined-only "$root/.build/release/libmapping.so" | awk '{ print $3 }' | sort) \
       <(nm -D --defined-only "$real" | awk '{ print $3 }' | sort)
check "the header is include/mapping.h" cmp -s "$root/include/mapping.h" "$stage$prefix/include/mapping.h"
check "bin/mapping answers --help" bash -c "'$stage$prefix/bin/mapping' --help | grep -q 'USAGE: mapping <subcommand>'"
# libmapping.so never needs libsimdjson or libpq: the simdjson parser and the PostgreSQL store are
# plugins it loads when asked for. It needs only these (and the dynamic loader's own):
check "libmapping.so needs only libc, libm, libstdc++, libgcc_s, jansson and SQLite (got: $(readelf -d "$real" | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' '))" \
  bash -c "! readelf -d '$real' | grep NEEDED | grep -v -e 'libc\.so' -e 'libm\.so' -e 'libstdc++\.so' -e 'libgcc_s\.so' -e 'libjansson\.so' -e 'libsqlite3\.so' -e 'ld-linux' -e 'libdl\.so' -e 'libpthread\.so'"
if [ "${MAPPING_SIMDJSON:-1}" = 1 ]; then
  check "the plugin needs only libsimdjson, libstdc++ and libc" \
    bash -c "! readelf -d '$lib/libmapping-simdjson.so' | grep NEEDED | grep -v -e libsimdjson -e libstdc++ -e libc.so -e libm.so -e libgcc_s"
fi
if [ "${MAPPING_POSTGRES:-1}" = 1 ]; then
  check "the PostgreSQL plugin is installed and needs libpq" bash -c "readelf -d '$lib/libmapping-postgres.so' | grep -q 'NEEDED.*libpq'"
fi

# pkg-config reads the staged mapping.pc with the stage as its sysroot.
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
check "pkg-config --modversion mapping is $version" test "$(pkg-config --modversion mapping)" = "$version"
if [ "${MAPPING_POSTGRES:-1}" = 1 ]; then
  check "pkg-config names the PostgreSQL plugin and libpq, which it needs" \
    bash -c "pkg-config --variable=plugins mapping | grep -q 'libmapping-postgres.so:libpq'"
  check "the plugin directory holds the PostgreSQL plugin" \
    test -f "$stage$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=plugindir mapping)/libmapping-postgres.so"
fi
flags=$(pkg-config --cflags --libs mapping)
check "pkg-config points into the stage: $flags" \
  bash -c "grep -q -- '-I$stage$prefix/include' <<<'$flags' && grep -q -- '-L$lib' <<<'$flags'"

# A program built only from what was installed, run against the staged library.
check "installed.c builds with pkg-config --cflags --libs mapping" \
  ${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$work/installed" "$root/Tests/install/installed.c" $flags
check "the program loads the staged libmapping.so.$major" \
  bash -c "LD_LIBRARY_PATH='$lib' ldd '$work/installed' | grep -q 'libmapping.so.$major => $lib/libmapping.so.$major '"
output=$(LD_LIBRARY_PATH=$lib "$work/installed" 2>&1)
check "the program imports and reads back (got: $output)" test "$output" = "libmapping $version: 3 representations, 2 users
1 ada
2 grace
1 ada"

check "make uninstall DESTDIR=... PREFIX=$prefix" stage_make uninstall
check "make uninstall left no file behind: $(staged | tr '\n' ' ')" test -z "$(staged)"

finish
