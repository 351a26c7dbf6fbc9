#!/bin/bash
# A dataset too large to hold is refused naming the file, the dataset and the
# size (issue 37, item 10): a copy of a rule database whose /rules/proof_ms has
# 2^40 rows (chunked and never written, so the file stays about 1 MB) gave a
# bare "superopt: out of memory". Now: one line, exit 2, the limit named.
#   hdf5_huge_dataset_test.sh SUPEROPT RULES_H5
set -u
bin=$1
rules=$2
test_name=hdf5_huge_dataset_test
. "$(dirname "$0")/temp_work.sh"
cd "$work" || exit 1

cp "$rules" huge.h5 || fail "copy"
/usr/bin/python3 -c '
import h5py
with h5py.File("huge.h5", "r+") as f:
    del f["rules/proof_ms"]
    f["rules"].create_dataset("proof_ms", shape=(2**40,), dtype="f8", chunks=(1024,))
' || fail "the generator"
for command in "db info" "db show --rule 0"; do
  status=0
  $bin $command huge.h5 >out.txt 2>err.txt || status=$?
  echo "$command: exit $status: $(cat err.txt)"
  [ $status = 2 ] || fail "$command: exit $status, not 2"
  [ "$(wc -l <err.txt)" = 1 ] || fail "$command: not one line"
  grep -Eq "^superopt: huge\.h5: /rules/proof_ms has 1099511627776 entries, 8\.8 TB in memory, over the .* a file.s data may take \(3/4 of this machine.s memory, or --max-memory if larger\)$" err.txt ||
    fail "$command: the message"
done
echo "hdf5_huge_dataset_test: ok"
