#!/usr/bin/env bash
# Checks the release libmapping.so against include/mapping.h:
#   - every function the header declares is exported, and nothing else is (only mapping_*);
#   - the library needs no Swift runtime library at run time;
#   - it carries a SONAME;
#   - the header compiles as C with -Wall -Wextra -Werror and as C++ (extern "C").
# Prints "abi: N passed, N failed" and exits non-zero on a failure.
set -u
lib=${1:?usage: check_exports.sh LIB HEADER}
header=${2:?usage: check_exports.sh LIB HEADER}
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "abi: $*" >&2; }

declared=$(grep -oE '\bmapping_[a-z0-9_]+\(' "$header" | tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sort -u)

[ -n "$declared" ] && pass || fail "no functions found in $header"
for name in $declared; do
  if grep -qx "$name" <<<"$exported"; then pass; else fail "$name is declared in the header but not exported"; fi
done
for name in $exported; do
  if grep -qx "$name" <<<"$declared"; then pass; else fail "$name is exported but not declared in the header"; fi
done

if ldd "$lib" | grep -qi swift; then fail "the library needs a Swift runtime library: $(ldd "$lib" | grep -i swift)"; else pass; fi
if readelf -d "$lib" | grep -q 'SONAME'; then pass; else fail "the library has no SONAME"; fi

include=$(dirname "$header")
if echo '#include <mapping.h>
int main(void) { return mapping_version_number() == MAPPING_VERSION_NUMBER ? 0 : 1; }' |
   ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -I"$include" -x c -fsyntax-only -; then pass; else fail "the header does not compile as C99"; fi
if command -v c++ >/dev/null; then
  if echo '#include <mapping.h>
int main() { mapping_context *ctx = nullptr; mapping_context_free(ctx); return 0; }' |
     c++ -std=c++11 -Wall -Wextra -Werror -I"$include" -x c++ -fsyntax-only -; then pass; else fail "the header does not compile as C++"; fi
fi

echo "abi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
