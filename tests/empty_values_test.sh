#!/usr/bin/env bash
# Empty values on the command line exit 2 with one line naming the flag
# (issue 37, items 7 and 9).   empty_values_test.sh SUPEROPT GRAPH RULES
set -uo pipefail
superopt=$1 graph=$2 rules=$3
fail() { echo "empty_values_test: FAIL: $*"; exit 1; }
expect() {  # expect REGEX COMMAND...
  local regex=$1; shift
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "exit $rc, not 2: $*"
  [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "not one line: $err"
  [[ "$err" =~ $regex ]] || fail "'$err' does not match '$regex'"
}
expect "--out: empty value$" "$superopt" optimize "$graph" --rules "$rules" --out ""
expect "--dump: empty value$" "$superopt" graph run "$graph" --dump ""
expect "--only: empty value$" "$superopt" verify-axioms --only ""
expect "the file argument is empty$" "$superopt" graph check ""
expect "--rules: empty value$" "$superopt" optimize "$graph" --rules ""
echo "empty_values_test: ok"
