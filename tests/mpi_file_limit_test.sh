#!/bin/bash
# MPI starts under a small file size limit (issue 37, item 10): under
# `ulimit -f` below 4 MiB, PMIx could not make its shared-store files and
# MPI_Init failed with 16-19 lines of PMIx and ORTE errors, exit 1. superopt
# now has PMIx keep that store in memory there, so a command that uses MPI
# runs; the limit meets only our own files, which name themselves.
#   mpi_file_limit_test.sh SUPEROPT
set -u
bin=$1
test_name=mpi_file_limit_test
. "$(dirname "$0")/temp_work.sh"
cd "$work" || exit 1
unset PMIX_MCA_gds
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

status=0
(trap '' XFSZ; ulimit -f 1024; exec "$bin" verify-axioms --only ewadd_comm) >out.txt 2>err.txt || status=$?
echo "verify-axioms under ulimit -f 1024: exit $status, $(wc -l <err.txt) lines on stderr"
[ $status = 0 ] || fail "exit $status: $(head -c 600 err.txt)"
grep -q "PMIX\|orte_init\|MPI_Init" err.txt && fail "MPI's start-up errors: $(head -c 600 err.txt)"
grep -q "ewadd_comm  *passed" out.txt || fail "no result: $(cat out.txt)"
# A store the user chose is kept (the hash store works under any limit).
(trap '' XFSZ; ulimit -f 1024; PMIX_MCA_gds=hash exec "$bin" verify-axioms --only ewadd_comm) >out.txt 2>err.txt ||
  fail "PMIX_MCA_gds=hash: exit $?: $(head -c 600 err.txt)"
echo "mpi_file_limit_test: ok"
