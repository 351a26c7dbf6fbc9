#!/bin/bash
# A database that cannot be written is refused before the work (issue 37,
# item 10): `verify` on a read-only database (mode 0444; as root too, since
# the write refuses a file without write bits) worked 13.6 s before failing
# to write it. Now `verify --redecide` and `derive` fail at once, one line,
# exit 2, the file unchanged and no lock file left; as another user (nobody,
# where the test runs as root), the same for a database of mode 0644.
#   readonly_database_test.sh SUPEROPT RULES_H5
set -u
bin=$1
rules=$2
test_name=readonly_database_test
. "$(dirname "$0")/temp_work.sh"
cd "$work" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cp "$rules" rules.h5 && chmod 0444 rules.h5 || fail "copy"
before=$(md5sum <rules.h5)
for command in "verify --redecide" "derive"; do
  set -- $command
  status=0
  SECONDS=0
  "$bin" "$1" rules.h5 "${@:2}" >out.txt 2>err.txt || status=$?
  echo "$command on a read-only database: exit $status in $SECONDS s: $(cat err.txt)"
  [ $status = 2 ] || fail "$command: exit $status, not 2"
  [ "$(wc -l <err.txt)" = 1 ] || fail "$command: not one line"
  grep -Eq "^superopt( verify| derive)?: cannot write rules.h5: the file is read-only \(mode 0444\), not replaced$" err.txt ||
    fail "$command: the message"
  [ "$SECONDS" -le $((3 * time_scale)) ] || fail "$command: refused only after $SECONDS s of work"
  [ "$(md5sum <rules.h5)" = "$before" ] || fail "$command: the database changed"
  [ ! -e rules.h5.lock ] || fail "$command: a lock file was left"
done

# The issue's case: a user who is not the owner (nobody) on a database of
# mode 0644 in a folder anyone may write (where the lock file can be made).
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp "$@"; }
# (Skipped where nobody cannot run the binary: a build under a private folder.)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && as_nobody "$bin" version >/dev/null 2>&1; then
  chmod 0755 "$work" && mkdir open && chmod 1777 open && cp "$rules" open/rules.h5 && chmod 0644 open/rules.h5 ||
    fail "the shared folder"
  status=0
  SECONDS=0
  (cd open && as_nobody "$bin" verify rules.h5 --redecide) >out.txt 2>err.txt || status=$?
  echo "verify --redecide as nobody: exit $status in $SECONDS s: $(cat err.txt)"
  [ $status = 2 ] && [ "$(wc -l <err.txt)" = 1 ] || fail "as nobody: exit $status: $(cat err.txt)"
  grep -Eq "cannot write rules.h5: the file is not writable by this user \(mode 0644, owner uid 0\), not replaced$" \
    err.txt || fail "as nobody: the message"
  [ "$SECONDS" -le $((3 * time_scale)) ] || fail "as nobody: refused only after $SECONDS s of work"
  [ ! -e open/rules.h5.lock ] || fail "as nobody: a lock file was left"
fi
echo "readonly_database_test: ok"
