#!/usr/bin/env bash
# docs/swift.md's tutorial as a Swift user builds it: Tests/swift-package is a package of its own
# whose executable is the tutorial, depending on libmapping's MappingEngine product
#   1. by path, on this checkout;
#   2. by version, with docs/swift.md's own Package.swift (`exact: VERSION`, its URL replaced by a
#      file:// one): on a clone of this checkout's HEAD tagged VERSION (so this step builds what is
#      committed), which SwiftPM refuses if a target it builds has unsafe flags;
# and each must print exactly what docs/swift.md says it prints. First, docs/swift.md's code must
# be Tests/swift-package/Sources/tutorial/main.swift line for line; last, a clone whose manifest
# adds the local-only flags (MAPPING_LOCAL_FLAGS=1) must be refused, so that step 2 can fail.
# Debug builds (the cheapest that compile every module the product needs), each in its own folder
# under .build-swift-package/, kept between runs. Offline: libmapping has no remote dependencies.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/Tests/swift-package
doc=$root/docs/swift.md
# The version docs/swift.md tells users to depend on; the repository carries it as a tag.
version=0.3.0-beta.1
swift=${SWIFT:-swift}
scratch=${MAPPING_SWIFT_PACKAGE_SCRATCH:-$root/.build-swift-package}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A dependent's build sees none of the Makefile's variables: no local-only flags (Package.swift's
# localFlags), and simdjson and libpq found as the manifest finds them by default.
unset MAPPING_LOCAL_FLAGS MAPPING_SIMDJSON MAPPING_POSTGRES
passed=0

# The fenced block after the line `marker` in docs/swift.md.
block() {
    awk -v marker="$1" '$0 == marker { found = 1; next }
                        found && /^```/ { if (inside) exit; inside = 1; next }
                        inside { print }' "$doc"
}
block '<!-- Tests/swift-package/Sources/tutorial/main.swift -->' > "$work/doc-main.swift"
if ! diff -u "$work/doc-main.swift" "$here/Sources/tutorial/main.swift"; then
    echo "docs/swift.md's tutorial is not Tests/swift-package/Sources/tutorial/main.swift (diff above)" >&2
    exit 1
fi
block '<!-- the tutorial prints -->' > "$work/expected.txt"
block "<!-- the tutorial's Package.swift -->" > "$work/Package.swift"
if [ ! -s "$work/expected.txt" ] || ! grep -q "exact: \"$version\")" "$work/Package.swift"; then
    echo "docs/swift.md lacks the tutorial's output, or its Package.swift the dependency on version $version" >&2
    exit 1
fi
passed=$((passed + 1))

# Builds and runs the tutorial package as `name` with the manifest `manifest` (its copy in
# $work/name, run from there: it writes tutorial.db in the current folder), with the manifest's
# environment given after them.
build_and_run() {
    local name=$1 manifest=$2 start=$SECONDS
    shift 2
    mkdir -p "$work/$name"
    cp -R "$here/Sources" "$work/$name/"
    cp "$manifest" "$work/$name/Package.swift"
    if ! env "$@" "$swift" build --quiet --package-path "$work/$name" --scratch-path "$scratch/$name" --cache-path "$work/cache"; then
        echo "swift package ($name): the tutorial package did not build (errors above)" >&2
        exit 1
    fi
    if ! (cd "$work/$name" && "$scratch/$name/debug/tutorial") > "$work/$name.out"; then
        echo "swift package ($name): the tutorial failed when run (its output: $(tail -3 "$work/$name.out"))" >&2
        exit 1
    fi
    if ! diff -u "$work/expected.txt" "$work/$name.out"; then
        echo "swift package ($name): the tutorial's output differs from docs/swift.md's (diff above)" >&2
        exit 1
    fi
    echo "swift package ($name): built and ran as docs/swift.md says in $((SECONDS - start)) s"
    passed=$((passed + 1))
}

build_and_run by-path "$here/Package.swift" LIBMAPPING_PATH="$root"

git clone -q "$root" "$work/libmapping"
# A lightweight tag (no signing, whatever the user's git config asks of annotated tags).
git -C "$work/libmapping" -c tag.gpgSign=false tag -f "$version" > /dev/null
sed "s|https://example.com/libmapping.git|file://$work/libmapping|" "$work/Package.swift" > "$work/by-version.swift"
if ! grep -q "file://$work/libmapping" "$work/by-version.swift"; then
    echo "docs/swift.md's Package.swift no longer names https://example.com/libmapping.git" >&2
    exit 1
fi
build_and_run by-version "$work/by-version.swift"

# The same version with the local-only flags switched on must be refused before anything builds.
mkdir -p "$work/refused"
cp -R "$here/Sources" "$work/refused/"
cp "$work/by-version.swift" "$work/refused/Package.swift"
if env MAPPING_LOCAL_FLAGS=1 "$swift" build --package-path "$work/refused" --scratch-path "$work/refused/.build" --cache-path "$work/cache" \
       > "$work/refused.log" 2>&1 || ! grep -q "contains unsafe build flags" "$work/refused.log"; then
    cat "$work/refused.log" >&2
    echo "swift package: a version of libmapping whose targets have unsafe flags was not refused as expected" >&2
    exit 1
fi
echo "swift package: with MAPPING_LOCAL_FLAGS=1 the version is refused ($(grep -m1 -o "the target '[A-Za-z]*' in product '[A-Za-z]*' contains unsafe build flags" "$work/refused.log"))"
passed=$((passed + 1))
echo "swift package: $passed passed, 0 failed"
