#!/bin/sh
# MPI tests of `superopt enumerate` (run by CTest): the database is the same
# for 1, 2, 3 and 4 ranks, and a run killed mid-way (on 1 rank and on 2 ranks)
# resumes from its checkpoint to the same database.
#   enumerate_mpi_test.sh SUPEROPT OPSET MPIEXEC WORKDIR
set -eu
superopt=$1 opset=$2 mpiexec=$3 work=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work" && mkdir -p "$work" && cd "$work"

run() {  # run RANKS OUT [ARGS...]
  ranks=$1 out=$2
  shift 2
  "$mpiexec" -n "$ranks" --oversubscribe "$superopt" enumerate --max-ops 3 --opset "$opset" --out "$out" --json "$@" >"$out.json"
}
graphs() {  # the graph count a run reported
  sed 's/.*"graphs":\([0-9]*\).*/\1/' "$1.json"
}
same() {  # the rules and the stage counts; attributes hold the command line
  h5diff "$1" "$2" /rules /rules && h5diff "$1" "$2" /stages /stages || {
    echo "FAIL: $1 and $2 differ"
    exit 1
  }
}

run 1 one.h5
for ranks in 2 3 4; do
  run $ranks ranks$ranks.h5
  same one.h5 ranks$ranks.h5
done
echo "same database on 1, 2, 3 and 4 ranks"

for ranks in 1 2; do
  # Rank 0 dies abruptly after 150 work units, as a killed job would.
  if SUPEROPT_TEST_EXIT_AFTER_UNITS=150 run $ranks killed$ranks.h5 --checkpoint ckpt$ranks 2>/dev/null; then
    echo "FAIL: the run meant to be killed finished"
    exit 1
  fi
  [ ! -e killed$ranks.h5 ] || { echo "FAIL: a killed run left a database"; exit 1; }
  [ -s ckpt$ranks/rank-0.log ] || { echo "FAIL: no checkpoint written"; exit 1; }
  run $ranks killed$ranks.h5 --checkpoint ckpt$ranks
  same one.h5 killed$ranks.h5
  # The graphs of units finished before the kill count too.
  [ "$(graphs killed$ranks.h5)" = "$(graphs one.h5)" ] || {
    echo "FAIL: the resumed run reports $(graphs killed$ranks.h5) graphs, the whole run $(graphs one.h5)"
    exit 1
  }
done
echo "killed runs resume to the same database"
