#!/bin/bash
# A database that cannot be written is refused before the work (issue 37,
# item 10): `verify` on a read-only database (mode 0444; as root too, since
# the write refuses a file without write bits) worked 13.6 s before failing
# to write it. Now `verify --redecide` and `derive` fail at once, one line,
# exit 2, the file unchanged and no lock file left.
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
echo "readonly_database_test: ok"
