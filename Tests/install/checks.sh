# Sourced by the install tests after setting `suite`: `check DESCRIPTION COMMAND...` counts one test,
# passed when the command succeeds; `finish` prints "<suite>: N passed, N failed" and fails on a failure.
passed=0
failed=0

check() {
  local description=$1
  shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "$suite: FAILED: $description" >&2; fi
}

finish() {
  echo "$suite: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
