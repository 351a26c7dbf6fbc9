#!/bin/bash
# HDF5 files whose data lies in other files are refused (issue 37, item 2):
# external storage (a rule's note read from /etc/passwd), a virtual dataset,
# an external link to a dataset or to a whole group, a soft link leading to an
# external one, in a rule database and in a cost table: one line naming the
# file and the dataset, exit 2. The plain copy still reads.
#   hdf5_external_test.sh SUPEROPT RULES COSTS WORKDIR
set -u
bin=$1
rules=$2
costs=$3
dir=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
fail() { echo "hdf5_external_test: FAIL: $*"; exit 1; }
/usr/bin/python3 "$here/make_hdf5_external_fixtures.py" "$rules" "$costs" . || fail "cannot write the fixtures"

# refused REGEX COMMAND...: exit 2 with one line matching REGEX, and no /etc/passwd on stdout.
refused() {
  local regex=$1
  shift
  timeout 60 "$@" >out.txt 2>err.txt
  local code=$?
  [ "$code" = 2 ] || fail "$*: exit $code, not 2: $(cat err.txt)"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "$*: the error is not one line: $(cat err.txt)"
  grep -Eq "$regex" err.txt || fail "$*: unexpected message: $(cat err.txt)"
  grep -q "root:" out.txt && fail "$*: printed /etc/passwd"
  echo "ok: $(cat err.txt)"
}
outside="refused \(superopt reads nothing outside the file\)$"
links="refused \(superopt follows no links in the files it reads\)$"
for command in "db show --rule 0" "db info"; do
  refused "rules_external_storage\.h5: dataset /rules/note has external storage \(its data in another file\), $outside" \
    "$bin" $command rules_external_storage.h5
  refused "rules_virtual\.h5: dataset /rules/note is a virtual dataset \(its data in other files\), $outside" \
    "$bin" $command rules_virtual.h5
  refused "rules_external_link\.h5: dataset /rules/note is an external link to another file, $outside" \
    "$bin" $command rules_external_link.h5
  refused "rules_group_link\.h5: group /rules is an external link to another file, $outside" \
    "$bin" $command rules_group_link.h5
  refused "rules_soft_link\.h5: dataset /rules/note is a soft link, $links" "$bin" $command rules_soft_link.h5
done
refused "costs_external_storage\.h5: dataset /cost_ms has external storage \(its data in another file\), $outside" \
  "$bin" graph check builtin:resnet_blocks:2 --cost table:costs_external_storage.h5

"$bin" db show --rule 0 rules_plain.h5 >out.txt 2>err.txt || fail "the plain copy is refused: $(cat err.txt)"
"$bin" graph check builtin:resnet_blocks:2 --cost "table:$costs" >out.txt 2>err.txt ||
  fail "the plain cost table is refused: $(cat err.txt)"
echo "hdf5_external_test: ok"
