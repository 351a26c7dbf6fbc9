#!/bin/sh
# Soundness acceptance: a freshly generated 3-operator TASO database, verified
# on 3 MPI ranks, has no verified rule that an evaluation at drawn members of
# its shape family refutes (two members per rule, seeds the verifier never used).
# CANDIDATES: `enumerate --max-ops 3` of this test run (CTest's search_rules
# fixture, read by other tests too: verified here in a copy); without it, the
# database is enumerated here.
#   soundness_fresh_test.sh SUPEROPT CHECK_DRAWN_MEMBERS MPIEXEC WORKDIR [CANDIDATES]
set -eu
bin=$1
check=$2
mpiexec=$3
dir=$4
candidates=${5:-}
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "soundness_fresh_test: FAIL: $*"; exit 1; }

if [ -n "$candidates" ]; then
  cp "$candidates" fresh.h5 || fail "no candidate database $candidates"
  /usr/bin/python3 -c 'import h5py, sys; f = h5py.File(sys.argv[1], "r"); assert f.attrs["max_ops"] == 3 and f.attrs["opset_name"] == "taso" and set(f["rules"]["status"][()]) == {0}' fresh.h5 ||
    fail "$candidates is not a 3-operator taso database of candidates only"
else
  "$bin" enumerate --max-ops 3 --out fresh.h5 --force >/dev/null || fail "enumerate"
fi
"$mpiexec" -n 3 --oversubscribe "$bin" verify fresh.h5 || fail "verify"
"$check" fresh.h5 2 || fail "a verified rule is false at a drawn member of its family"
echo "soundness_fresh_test: ok"
