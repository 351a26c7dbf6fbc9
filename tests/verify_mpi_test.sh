#!/bin/sh
# The verifier pool: the same verdicts and derivations from 1 process, 2 MPI
# ranks (1 worker) and 3 (2 workers), in waves of 8 rules so that rules derive
# from same-size rules of earlier waves, and a run killed midway resumes to the
# same database; the derivations replay; then `derive` (minimization) gives
# the same database on 1, 2 and 3 ranks. With 2 and 3 ranks, rank 0 holds no
# graphs and writes the file's graph columns back unchanged: they must be
# the columns of the 1-process run, byte for byte.
#   verify_mpi_test.sh SUPEROPT MPIEXEC WORKDIR
set -eu
bin=$1
mpiexec=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "verify_mpi_test: FAIL: $*"; exit 1; }

"$bin" enumerate --max-ops 2 --out base.h5 --force >/dev/null
cp base.h5 one.h5
cp base.h5 two.h5
cp base.h5 three.h5
cp base.h5 resumed.h5
"$bin" verify one.h5 --wave-rules 8 --json > one.json
"$mpiexec" -n 2 --oversubscribe "$bin" verify two.h5 --wave-rules 8
"$mpiexec" -n 3 --oversubscribe "$bin" verify three.h5 --wave-rules 8
grep -q '"derived_from_same_size":[1-9]' one.json ||
  fail "no rule was derived from a same-size rule of an earlier wave: $(cat one.json)"
"$bin" db check-proofs one.h5 >/dev/null || fail "a derivation made by verify does not replay"

set +e
SUPEROPT_TEST_EXIT_AFTER_RULES=40 "$bin" verify resumed.h5 --wave-rules 8 >/dev/null 2>&1
code=$?
set -e
[ "$code" = 3 ] || fail "the killed run exited $code, not 3"
# Unknown rules are tried again; verified and refuted ones are not.
undecided=$(/usr/bin/python3 -c "
import h5py, sys
s = list(h5py.File(sys.argv[1], 'r')['rules/status'][:])
assert len(s) - s.count(0) == 40, 'the killed run saved %d verdicts, not 40' % (len(s) - s.count(0))
print(s.count(0) + s.count(3))" resumed.h5) || fail "the killed run did not save its 40 verdicts"
"$mpiexec" -n 3 --oversubscribe "$bin" verify resumed.h5 --wave-rules 8 --json > resumed.json
grep -q "\"checked\":$undecided," resumed.json ||
  fail "the resumed run did not check exactly the $undecided undecided rules: $(cat resumed.json)"

/usr/bin/python3 - <<'PY' || fail "verdicts differ"
import h5py
def verdicts(path):
    f = h5py.File(path, "r")
    text = lambda column: [n.decode() if isinstance(n, bytes) else n for n in f["rules/" + column][:]]
    return list(f["rules/status"][:]), text("note"), text("derivation")
one, two, three, resumed = verdicts("one.h5"), verdicts("two.h5"), verdicts("three.h5"), verdicts("resumed.h5")
assert one == two, "1 process and 2 ranks disagree"
assert one == three, "1 process and 3 ranks disagree"
assert one[0].count(4) > 0, "no rule was derived"
assert one == resumed, "the resumed run disagrees"
assert 0 not in one[0], "a rule is still a candidate"
print("rules:", len(one[0]), "verified:", one[0].count(1), "derived:", one[0].count(4))
PY
"$bin" db info one.h5 | grep -E "verified +[1-9]" >/dev/null || fail "db info does not show verified rules"

cp one.h5 derive2.h5
cp one.h5 derive3.h5
"$bin" derive one.h5 >/dev/null
"$mpiexec" -n 2 --oversubscribe "$bin" derive derive2.h5 >/dev/null
"$mpiexec" -n 3 --oversubscribe "$bin" derive derive3.h5 --json > derive3.json
grep -q '"derived":[1-9]' derive3.json || fail "derive on 3 ranks derived nothing: $(cat derive3.json)"
grep -q '"derived_by_class_path":[0-9]' derive3.json ||
  fail "derive does not say how many rules its classes derived: $(cat derive3.json)"
/usr/bin/python3 - <<'PY' || fail "derive on 1, 2 and 3 ranks disagrees"
import h5py
def result(path):
    f = h5py.File(path, "r")
    return [list(f["rules/" + c][:]) for c in
            ("status", "derivation", "source", "target", "output_mapping", "source_ops", "target_ops")]
one = result("one.h5")
assert one == result("derive2.h5"), "2 ranks"
assert one == result("derive3.h5"), "3 ranks"
assert one[2:] == result("base.h5")[2:], "the graph columns changed"
PY
"$bin" db check-proofs derive3.h5 >/dev/null || fail "a derivation made on 3 ranks does not replay"
echo "verify_mpi_test: ok"
