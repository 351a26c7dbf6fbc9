#!/bin/sh
# A test program leaves nothing in the temporary folder: it makes its folders
# with unique names and removes them, so two runs at once never collide.
#   no_leftovers_test.sh PROGRAM [ARGS...]
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/superopt-leftovers.XXXXXX") || exit 1
TMPDIR=$tmp "$@" >"$tmp.log" 2>&1
code=$?
# Open MPI's own session folder (ompi.HOST.UID) is left out: it is per user and
# host, shared by design, and Open MPI removes it only when nothing else uses it.
left=$(ls -A "$tmp" | grep -v '^ompi\.')
rm -rf "$tmp"
if [ $code -ne 0 ]; then
  tail -n 20 "$tmp.log"; rm -f "$tmp.log"
  echo "no_leftovers_test: FAIL: $* exited $code"; exit 1
fi
rm -f "$tmp.log"
[ -z "$left" ] || { echo "no_leftovers_test: FAIL: $* left in the temporary folder: $left"; exit 1; }
echo "no_leftovers_test: ok"
