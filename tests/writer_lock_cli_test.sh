#!/usr/bin/env bash
# A writer of a database waits for another's lock and says so (issue 37, item 4):
# `verify` on a database whose lock another process holds prints one line,
# waits until it is released, then works, and leaves no lock file behind.
#   writer_lock_cli_test.sh SUPEROPT RULES_H5 WORK_DIR
set -euo pipefail
superopt=$1 rules=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
db=$work/rules.h5
cp "$rules" "$db"
fail() { echo "writer_lock_cli_test: FAIL: $*"; exit 1; }

flock "$db.lock" sleep 3 &
holder=$!
sleep 0.5
start_ms=$(($(date +%s%N) / 1000000))
"$superopt" verify "$db" --json >"$work/out.json" 2>"$work/err.txt" || fail "verify exited $?: $(cat "$work/err.txt")"
elapsed_ms=$(($(date +%s%N) / 1000000 - start_ms))
wait $holder
grep -q "waiting: .*rules.h5 is being written by another superopt process (lock .*rules.h5.lock)" "$work/err.txt" ||
  fail "no waiting line: $(cat "$work/err.txt")"
[ "$elapsed_ms" -ge 2000 ] || fail "verify did not wait for the lock (${elapsed_ms} ms)"
[ ! -e "$db.lock" ] || fail "lock file left behind"

# Refused early: a database in a folder where no lock (and no write) can be made.
mkdir "$work/ro" && cp "$rules" "$work/ro/rules.h5" && chattr +i "$work/ro" 2>/dev/null && {
  if "$superopt" verify "$work/ro/rules.h5" 2>"$work/ro-err.txt"; then chattr -i "$work/ro"; fail "verify in an immutable folder exited 0"; fi
  chattr -i "$work/ro"
  grep -q "cannot lock .*ro/rules.h5: Operation not permitted" "$work/ro-err.txt" || fail "$(cat "$work/ro-err.txt")"
}
rm -rf "$work"
echo "writer_lock_cli_test: ok"
