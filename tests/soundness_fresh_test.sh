#!/bin/sh
# Soundness acceptance: a freshly generated 3-operator TASO database, verified
# on 3 MPI ranks, has no verified rule that an evaluation at drawn members of
# its shape family refutes (two members per rule, seeds the verifier never used).
#   soundness_fresh_test.sh SUPEROPT CHECK_DRAWN_MEMBERS MPIEXEC WORKDIR
set -eu
bin=$1
check=$2
mpiexec=$3
dir=$4
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "soundness_fresh_test: FAIL: $*"; exit 1; }

"$bin" enumerate --max-ops 3 --out fresh.h5 --force >/dev/null || fail "enumerate"
"$mpiexec" -n 3 --oversubscribe "$bin" verify fresh.h5 || fail "verify"
"$check" fresh.h5 2 || fail "a verified rule is false at a drawn member of its family"
echo "soundness_fresh_test: ok"
