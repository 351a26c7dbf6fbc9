#!/bin/sh
# Runs a command and checks its exit code and its stderr, for the command-line tests:
#   expect_exit.sh [--one-line] EXPECTED_CODE REGEX -- COMMAND [ARGS...]
# REGEX is an extended regular expression (grep -E) that some line of stderr must
# match; an empty REGEX requires nothing. --one-line also requires stderr to be
# exactly one line. stdout passes through; stderr is echoed after the command ends.
# On a mismatch it prints "expect_exit: FAIL: ..." and exits 1.
set -u

one_line=no
if [ "${1-}" = "--one-line" ]; then
  one_line=yes
  shift
fi
if [ $# -lt 4 ] || [ "$3" != "--" ]; then
  echo "usage: expect_exit.sh [--one-line] EXPECTED_CODE REGEX -- COMMAND [ARGS...]" >&2
  exit 2
fi
expected=$1
regex=$2
shift 3

stderr_file=$(mktemp) || exit 2
trap 'rm -f "$stderr_file"' EXIT

"$@" 2>"$stderr_file"
code=$?
cat "$stderr_file" >&2

fail() {
  echo "expect_exit: FAIL: $*" >&2
  exit 1
}
[ "$code" -eq "$expected" ] || fail "expected exit code $expected, got $code"
if [ -n "$regex" ] && ! grep -Eq -e "$regex" "$stderr_file"; then
  fail "stderr does not match: $regex"
fi
if [ "$one_line" = yes ]; then
  lines=$(wc -l <"$stderr_file")
  [ "$lines" -eq 1 ] || fail "expected one line on stderr, got $lines"
fi
exit 0
