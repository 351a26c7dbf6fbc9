#!/usr/bin/env bash
# The Slurm jobs on a real one-node Slurm (scripts/local-slurm.sh): build-rules
# with 4 tasks writes the database `mpirun -np 4` enumerate + verify writes; a
# job cancelled mid-enumeration and requeued resumes from its checkpoint to the
# same database; without GPUs optimize-gpu.sbatch is refused at submission and
# optimize-cpu.sbatch runs; on a node that declares a GPU without a device, the
# GPU jobs pass `sbatch --test-only`, optimize-gpu.sbatch ends at once in one
# line, and their plumbing runs with stand-ins for the GPU commands. Exits 77
# without Slurm.
#   slurm_test.sh SUPEROPT MAKE_COST_FIXTURE SOURCE_DIR MPIEXEC WORKDIR
# Each run works in a new folder under WORKDIR (removed when it passes), so two
# runs at once do not delete each other's files and cluster, and a failed run's
# folder stays, with its output (test.log), the jobs' outputs and the cluster's
# logs: a rerun never overwrites them.
set -euo pipefail
superopt=$1 make_costs=$2 src=$3 mpiexec=$4 parent=$5
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null; then
  echo "skipped: slurmctld/slurmd are not installed (Debian package slurm-wlm)"
  exit 77
fi
mkdir -p "$parent"
work=$(mktemp -d "$(cd "$parent" && pwd)/run.XXXXXX")
cd "$work"
exec > >(tee test.log) 2>&1
echo "slurm_test: in $work, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SUPEROPT_SLURM_DIR=$work/cluster

cluster_report() {  # what the cluster was doing: node and job states, the daemons' last words
  echo "slurm_test: the failed run's folder is kept: $work (test.log, *.out, cluster/log/)"
  [ -n "${SLURM_CONF:-}" ] || return 0
  echo "--- sinfo: $(sinfo -h -o '%N %T %E' 2>&1 | head -3)"
  echo "--- squeue:"
  squeue -h -t all -o '%i %j %T %r elapsed=%M' 2>&1 | head -10 || true
  local log
  for log in slurmctld slurmd; do
    echo "--- $log.log (errors, node and job events, last 12 lines):"
    grep -v 'state file\|state save file\|node_state.old\|job_state.old\|resv_state\|trigger_state' \
      "$SUPEROPT_SLURM_DIR/log/$log.log" 2>&1 | grep -i 'error\|fatal\|down\|drain\|not responding\|kill\|cancel\|requeue\|credential\|_job\|launch' | tail -12 || true
  done
  echo "--- end of the cluster's report"
}
fail() {
  echo "slurm_test: FAIL: $*"
  cluster_report
  exit 1
}
# A command that fails outside fail() (set -e) names itself: such a run used
# to end with no line at all, and ctest showed an empty output.
trap 'echo "slurm_test: FAIL: line $LINENO: $BASH_COMMAND (exit $?)"; cluster_report' ERR
# A run that CTest killed at its time limit (SIGKILL: no EXIT trap) left its
# daemons running; stop those of runs whose test process is gone.
echo $$ >test.pid
for old in "$parent"/run.*; do
  [ "$old" != "$work" ] && [ -s "$old/test.pid" ] || continue
  ! kill -0 "$(cat "$old/test.pid")" 2>/dev/null || continue  # that run goes on
  [ -s "$old/cluster/slurmctld.pid" ] && kill -0 "$(cat "$old/cluster/slurmctld.pid")" 2>/dev/null || continue
  echo "slurm_test: stopping the cluster a killed run left in $old"
  SUPEROPT_SLURM_DIR=$old/cluster bash "$src/scripts/local-slurm.sh" stop >/dev/null 2>&1 || true
done
passed=0
trap 'bash "$src/scripts/local-slurm.sh" stop >/dev/null 2>&1 || true; [ $passed = 0 ] || rm -rf "$work"' EXIT
cluster=$(bash "$src/scripts/local-slurm.sh" start) || fail "scripts/local-slurm.sh start failed"
eval "$cluster"
bash "$src/scripts/local-slurm.sh" status >/dev/null || fail "local-slurm.sh status says the cluster is down"

job_state() { squeue -h -t all -j "$1" -o %T 2>/dev/null || true; }
steps_alive() {  # steps_alive JOB: the job's step daemons still run (their sockets in this cluster's spool)
  compgen -G "$SUPEROPT_SLURM_DIR/spool/$(hostname -s)_$1.*" >/dev/null
}
# The time limits below are for a Release build on a busy 2-core machine (a
# ctest -j2 beside it); SUPEROPT_TEST_TIME_SCALE multiplies them.
time_scale=${SUPEROPT_TEST_TIME_SCALE:-1}
wait_for() {  # wait_for JOB SECONDS STATE...: until the job is in one of the states and, in a
  # final one, its step daemons have ended, so that what the job wrote is complete: slurmctld
  # records the end when the batch script exits, its slurmstepd may still be closing files.
  local job=$1 limit=$(($2 * time_scale)) start=$SECONDS state s
  shift 2
  while :; do
    state=$(job_state "$job")
    for s in "$@"; do
      [ "$state" = "$s" ] || continue
      case $s in
        COMPLETED | FAILED | CANCELLED) steps_alive "$job" && continue ;;
      esac
      # In lower case: CTest fails a test whose output says FAIL.
      echo "slurm_test: [$SECONDS s] job $job ${state,,} after $((SECONDS - start)) s"
      return 0
    done
    [ $((SECONDS - start)) -lt "$limit" ] || break
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
"$mpiexec" -n 4 --oversubscribe "$superopt" enumerate --max-ops 2 --out reference.h5 >reference.log 2>&1 ||
  fail "mpirun enumerate for the reference: $(tail -5 reference.log)"
"$mpiexec" -n 4 --oversubscribe "$superopt" verify reference.h5 >>reference.log 2>&1 ||
  fail "mpirun verify for the reference: $(tail -5 reference.log)"

job=$(submit whole "$superopt")
wait_for "$job" 150 COMPLETED FAILED CANCELLED
[ "$(job_state "$job")" = COMPLETED ] || fail "build-rules job $job: $(job_state "$job"); $(cat whole.out)"
same_db reference.h5 whole.h5
[ ! -e whole.h5.checkpoint ] || fail "the finished job left its checkpoint"
all_graphs=$(sed -n 's/^enumerated \([0-9]*\) graphs.*/\1/p' whole.out)
[ -n "$all_graphs" ] || fail "no enumerate summary in whole.out"

# The interrupted job: its first attempt runs superopt through a wrapper that
# freezes every task (SIGSTOP to its own superopt) once the ranks have logged
# 4 KB of work units (of about 560 KB at 2 operators), so the job is cancelled
# mid-enumeration whatever the machine's speed. The wrapper lets its superopt
# run only in slices of 20 ms and measures the logs while it is stopped: a
# wrapper that polled a running superopt was starved on a loaded machine (a
# ctest -j2 beside it) until the enumeration had ended (all 11876 graphs in
# the checkpoint, at 4 KB of 560 KB), and the resume had nothing to do.
cat >pausing-superopt.sh <<EOF
#!/bin/sh
if [ "\$1" != enumerate ] || [ "\${SLURM_RESTART_COUNT:-0}" != 0 ]; then exec "$superopt" "\$@"; fi
"$superopt" "\$@" &
child=\$!
while kill -STOP \$child 2>/dev/null; do
  logged=\$(cat "$work"/cut.h5.checkpoint/enumerate/rank-*.log 2>/dev/null | wc -c)
  if [ "\$logged" -gt 4096 ]; then
    echo "\$logged bytes logged" >"$work/paused.\$SLURM_PROCID"
    wait \$child  # until scancel ends it
    exit
  fi
  kill -CONT \$child
  sleep 0.02
done
wait \$child
EOF
chmod +x pausing-superopt.sh
job=$(submit cut "$work/pausing-superopt.sh")
start=$SECONDS
until [ -e paused.0 ] || [ $((SECONDS - start)) -ge $((60 * time_scale)) ]; do
  sleep 0.2
done
[ -e paused.0 ] || fail "the enumerate step never reached its pause in $((60 * time_scale)) s: $(cat cut.out)"
echo "slurm_test: [$SECONDS s] job $job paused after $((SECONDS - start)) s, at $(cat paused.0)"
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

# This cluster has no GPU, like a CPU-only one: optimize-gpu.sbatch is refused
# at submission, in one line, and nothing is written (the job used to be
# accepted on a GPU-less node and fail after start-up, leaving an empty
# results folder); optimize-cpu.sbatch, which that script names, runs instead.
refusal_rc=0
refusal=$(sbatch --export="ALL,OUT_DIR=$work/refused,RULES=$work/whole.h5,SUPEROPT=$superopt" \
  "$src/slurm/optimize-gpu.sbatch" 2>&1) || refusal_rc=$?
[ $refusal_rc != 0 ] && [ "$(wc -l <<<"$refusal")" = 1 ] ||
  fail "optimize-gpu.sbatch on a cluster without GPUs: exit $refusal_rc, '$refusal'"
[ ! -e refused ] || fail "the refused optimize-gpu.sbatch made its results folder"
echo "optimize-gpu.sbatch without GPUs: refused at submission: $refusal"
job=$(sbatch --parsable --output="$work/cpu.out" --export="ALL,MODELS=builtin:resnet_blocks:1,\
RULES=$work/whole.h5,OUT_DIR=$work/cpu,REPEAT=3,MEASURE_ARGS=--repeat 3 --warmup 1,\
OPTIMIZE_ARGS=--time-limit 5,SUPEROPT=$superopt" "$src/slurm/optimize-cpu.sbatch")
wait_for "$job" 120 COMPLETED FAILED
[ "$(job_state "$job")" = COMPLETED ] || fail "optimize-cpu job $job failed: $(cat cpu.out)"
/usr/bin/python3 - "$work/cpu/results.json" <<'PY' || fail "bad results.json of optimize-cpu.sbatch: $(cat cpu/results.json)"
import json, sys
results = json.load(open(sys.argv[1]))
assert [r["model"] for r in results] == ["builtin:resnet_blocks:1"], results
r = results[0]
assert r["optimize"]["cost_model"].startswith("table:"), r["optimize"]["cost_model"]
assert r["input_run"]["device_kind"] == "cpu" and r["optimized_run"]["device_kind"] == "cpu", r["input_run"]
assert r["input_run"]["repeats"] == 3 and r["input_run"]["median_ms"] > 0, r["input_run"]
print("optimize-cpu.sbatch: measured, optimized and ran", r["model"], "on the CPU")
PY

# The GPU jobs on a node that declares a GPU without a device (SUPEROPT_SLURM_GPUS):
# a fresh cluster in the same folder (its logs go on).
bash "$src/scripts/local-slurm.sh" stop >/dev/null
cluster=$(SUPEROPT_SLURM_GPUS=1 bash "$src/scripts/local-slurm.sh" start) ||
  fail "scripts/local-slurm.sh start with a GPU failed"
eval "$cluster"
for gpu_job in optimize-gpu reproduce; do
  test_only=$(sbatch --test-only "$src/slurm/$gpu_job.sbatch" 2>&1) || true
  [[ $test_only == *"to start at"* ]] || fail "sbatch --test-only rejects slurm/$gpu_job.sbatch: $test_only"
done

# Accepted there, optimize-gpu.sbatch with the real superopt, which finds no
# CUDA device, ends at once with one line naming optimize-cpu.sbatch, and
# writes nothing.
job=$(sbatch --parsable --output="$work/no-device.out" \
  --export="ALL,RULES=$work/whole.h5,OUT_DIR=$work/no-device,SUPEROPT=$superopt" "$src/slurm/optimize-gpu.sbatch")
wait_for "$job" 60 COMPLETED FAILED
[ "$(job_state "$job")" = FAILED ] && [ "$(grep -c . no-device.out)" = 1 ] &&
  grep -q "no CUDA device on node .*slurm/optimize-cpu.sbatch" no-device.out ||
  fail "optimize-gpu.sbatch on a node without a CUDA device: $(job_state "$job"), output: $(cat no-device.out)"
[ ! -e no-device ] || fail "optimize-gpu.sbatch without a CUDA device made its results folder"
echo "optimize-gpu.sbatch on a node without a CUDA device: $(cat no-device.out)"

# optimize-gpu.sbatch's plumbing there: a stand-in superopt that reports a
# device, whose measure writes a fixed cost table and whose run prints a fixed
# timing; optimize is the real one, with the table.
cat >gpu-standin.sh <<EOF
#!/bin/sh
echo "\$*" >>"$work/gpu-standin.calls"
case \$1 in
  version) echo '{"cuda":{"devices":[{"name":"stand-in"}]}}' ;;
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
    # Not checked is no failure: on a loaded machine --time-limit 5 can end
    # before the check ran, and the result is then the model itself.
    check = r["optimize"]["check"]
    assert check["passed"] or check.get("status") == "not checked", check
    assert r["input_run"]["median_ms"] == 1.5
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
