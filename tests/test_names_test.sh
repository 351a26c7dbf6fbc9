#!/bin/bash
# Test names stay short (issue 37, item 12): a Catch2 test name with '[' in it
# ("slice keeps [begin, end) of an axis") made catch_discover_tests join a
# whole executable's tests into one CTest name of 660 characters, which padded
# every progress line of scripts/test.sh to about 690. Here every name is at
# most 150 characters and holds no ';' (the mark of such a join).
#   test_names_test.sh BUILD_DIR CTEST
set -u
build=$1
ctest=$2
names=$(cd "$build" && "$ctest" -N | sed -n 's/^ *Test *#[0-9]*: //p') || {
  echo "test_names_test: FAIL: ctest -N"
  exit 1
}
count=$(printf '%s\n' "$names" | wc -l)
long=$(printf '%s\n' "$names" | awk 'length > 150 || /;/' | cut -c1-200)
[ -z "$long" ] || {
  echo "test_names_test: FAIL: names over 150 characters or joined with ';':"
  echo "$long"
  exit 1
}
echo "$count test names, the longest $(printf '%s\n' "$names" | awk '{ if (length > m) m = length } END { print m }') characters"
echo "test_names_test: ok"
