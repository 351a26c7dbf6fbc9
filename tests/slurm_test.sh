#!/usr/bin/env bash
# The Slurm jobs on a real one-node Slurm (scripts/local-slurm.sh): build-rules
# with 4 tasks writes the database `mpirun -np 4` enumerate + verify writes; a
# job cancelled mid-enumeration and requeued resumes from its checkpoint to the
# same database; the GPU jobs pass `sbatch --test-only`, and their plumbing runs
# here with stand-ins for the GPU commands. Exits 77 without Slurm.
#   slurm_test.sh SUPEROPT MAKE_COST_FIXTURE SOURCE_DIR MPIEXEC WORKDIR
# Each run works in a new folder under WORKDIR (removed when it passes), so two
# runs at once do not delete each other's files and cluster.
set -euo pipefail
superopt=$1 make_costs=$2 src=$3 mpiexec=$4 parent=$5
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null; then
  echo "skipped: slurmctld/slurmd are not installed (Debian package slurm-wlm)"
  exit 77
fi
fail() {
  echo "slurm_test: FAIL: $*"
  exit 1
}
# A command that fails outside fail() (set -e) names itself: such a run used
# to end with no line at all, and ctest showed an empty output.
trap 'echo "slurm_test: FAIL: line $LINENO: $BASH_COMMAND (exit $?)"' ERR
mkdir -p "$parent"
work=$(mktemp -d "$(cd "$parent" && pwd)/run.XXXXXX")
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SUPEROPT_SLURM_DIR=$work/cluster
passed=0
trap 'bash "$src/scripts/local-slurm.sh" stop >/dev/null 2>&1 || true; [ $passed = 0 ] || rm -rf "$work"' EXIT
eval "$(bash "$src/scripts/local-slurm.sh" start)"
bash "$src/scripts/local-slurm.sh" status >/dev/null || fail "local-slurm.sh status says the cluster is down"

job_state() { squeue -h -t all -j "$1" -o %T 2>/dev/null || true; }
steps_alive() {  # steps_alive JOB: the job's step daemons still run (their sockets in this cluster's spool)
  compgen -G "$SUPEROPT_SLURM_DIR/spool/$(hostname -s)_$1.*" >/dev/null
}
wait_for() {  # wait_for JOB SECONDS STATE...: until the job is in one of the states and, in a
  # final one, its step daemons have ended, so that what the job wrote is complete: slurmctld
  # records the end when the batch script exits, its slurmstepd may still be closing files.
  local job=$1 limit=$2 state s
  shift 2
  for _ in $(seq 1 $((limit * 5))); do
    state=$(job_state "$job")
    for s in "$@"; do
      [ "$state" = "$s" ] || continue
      case $s in
        COMPLETED | FAILED | CANCELLED) steps_alive "$job" || return 0 ;;
        *) return 0 ;;
      esac
    done
    sleep 0.2
  done
  fail "job $job is ${state:-gone}$(steps_alive "$job" && echo ' (steps still running)'), not $*, after $limit s"
}
same_db() {  # rules, verdicts and notes (not proof times), stage counts, what made them
  /usr/bin/python3 - "$1" "$2" <<'PY' || fail "$1 and $2 differ"
import h5py, sys
def content(path):
    f = h5py.File(path, "r")
    rules = {k: f["rules"][k][()].tolist() for k in f["rules"] if k != "proof_ms"}
    stages = {k: f["stages"][k][()].tolist() for k in f["stages"]}
    made_by = {k: v for k, v in f.attrs.items() if k != "arguments"}  # arguments name the files
    return rules, stages, str(made_by)
a, b = content(sys.argv[1]), content(sys.argv[2])
status = a[0]["status"]
assert len(status) > 0, "no rules"
assert a == b, "different rules, verdicts or stage counts"
print("same rules and verdicts: %d rules, %d verified" % (len(status), status.count(1)))
PY
}
submit() {  # submit NAME BINARY: a build-rules job for 2 operators on 4 tasks
  sbatch --parsable --ntasks=4 --output="$work/$1.out" --export="ALL,MAX_OPS=2,OUT=$work/$1.h5,SUPEROPT=$2" \
    "$src/slurm/build-rules.sbatch"
}

# The reference: the same two commands under mpirun.
"$mpiexec" -n 4 --oversubscribe "$superopt" enumerate --max-ops 2 --out reference.h5 >/dev/null 2>&1
"$mpiexec" -n 4 --oversubscribe "$superopt" verify reference.h5 >/dev/null

job=$(submit whole "$superopt")
wait_for "$job" 150 COMPLETED FAILED CANCELLED
[ "$(job_state "$job")" = COMPLETED ] || fail "build-rules job $job: $(job_state "$job"); $(cat whole.out)"
same_db reference.h5 whole.h5
[ ! -e whole.h5.checkpoint ] || fail "the finished job left its checkpoint"
all_graphs=$(sed -n 's/^enumerated \([0-9]*\) graphs.*/\1/p' whole.out)
[ -n "$all_graphs" ] || fail "no enumerate summary in whole.out"

# The interrupted job: its first attempt runs superopt through a wrapper that
# freezes every task (SIGSTOP to its own superopt) once the ranks have logged
# 4 KB of work units (of about 17 KB at 2 operators since the checkpoint logs
# record about 50 bytes a unit; 16 KB was 93 % of the run, and an idle machine
# finished before the pause), so the job is cancelled mid-enumeration whatever
# the machine's speed.
cat >pausing-superopt.sh <<EOF
#!/bin/sh
if [ "\$1" != enumerate ] || [ "\${SLURM_RESTART_COUNT:-0}" != 0 ]; then exec "$superopt" "\$@"; fi
"$superopt" "\$@" &
child=\$!
while kill -0 \$child 2>/dev/null; do
  if [ "\$(cat "$work"/cut.h5.checkpoint/enumerate/rank-*.log 2>/dev/null | wc -c)" -gt 4096 ]; then
    kill -STOP \$child
    touch "$work/paused.\$SLURM_PROCID"
    wait \$child  # until scancel ends it
    exit
  fi
  sleep 0.02
done
wait \$child
EOF
chmod +x pausing-superopt.sh
job=$(submit cut "$work/pausing-superopt.sh")
for _ in $(seq 1 300); do
  [ -e paused.0 ] && break
  sleep 0.2
done
[ -e paused.0 ] || fail "the enumerate step never reached its pause: $(cat cut.out)"
[ "$(job_state "$job")" = RUNNING ] || fail "job $job is $(job_state "$job"), not running, at the pause"
scancel "$job"
wait_for "$job" 60 CANCELLED
[ ! -e cut.h5.checkpoint/enumerate.done ] || fail "enumerate finished before the cancel"
[ ! -e cut.h5 ] || fail "a cancelled job wrote its database"
# Slurm holds a requeued job for 2 minutes, so that its new credential is not
# taken for the one revoked by the cancel; credentials count whole seconds, so
# waiting 2 s and then starting it at once is as safe.
sleep 2
scontrol requeue "$job"
scontrol update JobId="$job" StartTime=now
wait_for "$job" 150 COMPLETED FAILED
[ "$(job_state "$job")" = COMPLETED ] || fail "the requeued job $job failed: $(cat cut.out)"
grep -q "attempt 2" cut.out || fail "no second attempt in cut.out"
grep -q "resuming enumerate from the checkpoint" cut.out || fail "the requeued job did not resume: $(cat cut.out)"
# The second attempt reads the graphs of the first from the checkpoint and
# makes only the rest: it still counts them all.
total_graphs=$(sed -n 's/^enumerated \([0-9]*\) graphs.*/\1/p' cut.out | tail -1)
from_checkpoint=$(sed -n 's/^resumed from the checkpoint: \([0-9]*\) of those graphs/\1/p' cut.out | tail -1)
[ "$total_graphs" = "$all_graphs" ] || fail "the resumed job counts $total_graphs graphs, the whole run $all_graphs"
[ -n "$from_checkpoint" ] && [ "$from_checkpoint" -gt 0 ] && [ "$from_checkpoint" -lt "$all_graphs" ] ||
  fail "the requeued job took '$from_checkpoint' of $all_graphs graphs from the checkpoint"
echo "the requeued job took $from_checkpoint of $all_graphs graphs from the checkpoint"
same_db reference.h5 cut.h5

for gpu_job in optimize-gpu reproduce; do
  sbatch --test-only "$src/slurm/$gpu_job.sbatch" 2>&1 | grep -q "to start at" ||
    fail "sbatch --test-only rejects slurm/$gpu_job.sbatch"
done

# optimize-gpu.sbatch's plumbing on this GPU-less node (it declares a fake GPU):
# a stand-in superopt whose measure writes a fixed cost table and whose run
# prints a fixed timing; optimize is the real one, with the table.
cat >gpu-standin.sh <<EOF
#!/bin/sh
echo "\$*" >>"$work/gpu-standin.calls"
case \$1 in
  measure) for table; do :; done; exec "$make_costs" "\$table" ;;  # the last argument
  run) echo '{"median_ms": 1.5}' ;;
  *) exec "$superopt" "\$@" ;;
esac
EOF
chmod +x gpu-standin.sh
job=$(sbatch --parsable --output="$work/gpu.out" --export="ALL,MODELS=builtin:squeezenet builtin:resnet_blocks:1,\
RULES=$work/whole.h5,OUT_DIR=$work/gpu,REPEAT=3,OPTIMIZE_ARGS=--time-limit 5,SUPEROPT=$work/gpu-standin.sh" \
  "$src/slurm/optimize-gpu.sbatch")
wait_for "$job" 120 COMPLETED FAILED
[ "$(job_state "$job")" = COMPLETED ] || fail "optimize-gpu job $job failed: $(cat gpu.out)"
grep -qx "measure builtin:squeezenet builtin:resnet_blocks:1 --out $work/gpu/costs.h5" gpu-standin.calls &&
  grep -qx "run $work/gpu/resnet_blocks_1.opt.json --gpu --repeat 3 --json" gpu-standin.calls ||
  fail "optimize-gpu.sbatch ran: $(cat gpu-standin.calls)"
/usr/bin/python3 - "$work/gpu/results.json" <<'PY' || fail "bad results.json: $(cat gpu/results.json)"
import json, sys
results = json.load(open(sys.argv[1]))
assert [r["model"] for r in results] == ["builtin:squeezenet", "builtin:resnet_blocks:1"]
for r in results:
    assert r["optimize"]["cost_model"].startswith("table:"), r["optimize"]["cost_model"]
    assert r["optimize"]["check"]["passed"] and r["input_run"]["median_ms"] == 1.5
print("optimize-gpu.sbatch: results for", len(results), "models")
PY

# reproduce.sbatch's plumbing: the scripts it is given run in order with --out
# and --quick; a failing one fails the job after the others ran.
mkdir -p fake-repo/scripts/reproduce
echo 'echo "$*" >"$2/first.args"' >fake-repo/scripts/reproduce/first.sh
echo 'exit 1' >fake-repo/scripts/reproduce/broken.sh
echo 'echo "$*" >"$2/last.args"' >fake-repo/scripts/reproduce/last.sh
job=$(sbatch --parsable --output="$work/reproduce.out" \
  --export="ALL,REPO=$work/fake-repo,SCRIPTS=first broken last,OUT_DIR=$work/reproduce,QUICK=1" \
  "$src/slurm/reproduce.sbatch")
wait_for "$job" 120 COMPLETED FAILED
[ "$(job_state "$job")" = FAILED ] || fail "reproduce job $job with a broken script: $(job_state "$job")"
# Each check on its own, so that a failure says which.
grep -qx -- "--out $work/reproduce --quick" reproduce/first.args ||
  fail "reproduce.sbatch: first.sh got '$(cat reproduce/first.args 2>&1)'; job output: $(cat reproduce.out)"
[ -e reproduce/last.args ] || fail "reproduce.sbatch: last.sh did not run after broken.sh; job output: $(cat reproduce.out)"
grep -q "failed: broken" reproduce.out || fail "reproduce.sbatch: no 'failed: broken' in the job output: $(cat reproduce.out)"
passed=1
echo "slurm_test: ok"
