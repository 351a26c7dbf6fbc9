# Sourced by shell tests: `fail MESSAGE` (prints "$test_name: FAIL: MESSAGE",
# exits 1) and $work, a new temporary folder removed at exit, so that two runs
# at once never share one. Set test_name before sourcing. $time_scale is the
# factor on wall-clock bounds (tests/time_scale.cmake: 10 in a sanitizer build).
fail() {
  echo "$test_name: FAIL: $*"
  exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/superopt-$test_name.XXXXXX")
trap 'rm -rf "$work"' EXIT
time_scale=${SUPEROPT_TEST_TIME_SCALE:-1}
