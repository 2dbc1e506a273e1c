#!/usr/bin/env bash
# Builds the libFuzzer drivers against the AddressSanitizer build of libmapping and runs each for
# FUZZ_SECONDS seconds (default 60), or until FUZZ_RUNS executions when that is set, one after the
# other, on a working copy of its seed corpus, then prints one line per driver: seconds taken,
# executions, coverage (edges), corpus size and whether it found anything. LeakSanitizer is on: a leak is a finding too. A finding is kept in
# .build-fuzz/artifacts/<driver>/ and fails the run: turn it into a regression test.
# Usage (from the repository root): bash Tests/fuzz/run.sh LIBDIR CLANG [driver ...]
set -uo pipefail
libdir=$1
clang=$2
shift 2
seconds=${FUZZ_SECONDS:-60}
runs_limit=()
[ -n "${FUZZ_RUNS:-}" ] && runs_limit=(-runs="$FUZZ_RUNS")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/.build-fuzz
drivers=("$@")
[ ${#drivers[@]} -gt 0 ] || drivers=(import spec predicate paths response chunks store observe)
mkdir -p "$work/bin"
status=0
printf '| driver | seconds | executions | exec/s | edges | corpus | findings |\n|---|---|---|---|---|---|---|\n'
for driver in "${drivers[@]}"; do
  binary=$work/bin/fuzz_$driver
  # One command line for every driver: fuzz_store also calls SQLite itself.
  "$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld \
    -I"$root/include" -o "$binary" "$root/Tests/fuzz/fuzz_$driver.c" \
    -L"$libdir" -lmapping -Wl,-rpath,"$libdir" -ljansson -lsqlite3 || { echo "cannot build fuzz_$driver"; exit 1; }
  corpus=$work/corpus/$driver
  artifacts=$work/artifacts/$driver
  rm -rf "$artifacts"  # findings of earlier runs are not this run's
  mkdir -p "$corpus" "$artifacts"
  cp -n "$root/Tests/fuzz/corpus/$driver/"* "$corpus/" 2>/dev/null
  # The JSON dictionary helps the drivers whose input is text; fuzz_store's and fuzz_observe's inputs
  # are programs of byte-coded steps.
  dict=(-dict="$root/Tests/fuzz/json.dict")
  case $driver in store|observe) dict=() ;; esac
  log=$work/$driver.log
  # SWIFT_BACKTRACE: the Swift runtime's crash handler would print its own report after a finding
  # and trip ASan while doing it; libFuzzer's report is the one wanted.
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    "$binary" "$corpus" "${dict[@]}" -max_total_time="$seconds" "${runs_limit[@]}" -max_len=4096 \
    -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" > "$log" 2>&1
  code=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  edges=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  files=$(ls "$corpus" | wc -l)
  found=$(ls "$artifacts" | wc -l)
  taken=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -oE '[0-9]+ second' | grep -oE '[0-9]+')
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$driver" "${taken:-$seconds}" "${runs:-?}" "${speed:-?}" "${edges:-?}" "$files" "$found"
  # libFuzzer stops checking each input for leaks after 1000 inputs that kept memory without
  # leaking it (a driver that lets its state grow): say so, the leak column is then incomplete.
  if grep -q 'libFuzzer disabled leak detection' "$log"; then
    echo "fuzz_$driver: libFuzzer stopped checking each input for leaks (see $log)" >&2
  fi
  if [ "$code" != 0 ] || [ "$found" != 0 ]; then
    status=1
    echo "fuzz_$driver found a problem (exit $code); see $log and $artifacts" >&2
    grep -m1 -A12 -E 'ERROR|broken promise|deadly signal' "$log" >&2
  fi
done
exit $status
