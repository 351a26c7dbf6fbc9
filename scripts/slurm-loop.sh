#!/usr/bin/env bash
# Runs the Slurm test (CTest's slurm_jobs) N times in a row, to show it is not
# flaky: one line per run (passed or failed, seconds, why, the log) and a
# summary with the pass count and the durations.
#
#   N=10 scripts/slurm-loop.sh [BUILD]     # BUILD defaults to ./build
#
# Each run is the command, environment and time limit CTest gives slurm_jobs,
# with one difference: the binaries it tests (superopt, make_cost_fixture) are
# copied once at the start, so a rebuild in the same tree during the loop (a
# half-linked superopt died of SIGILL in one run) does not change them. Each
# run's output is kept in its own file, and a failed run's folder (cluster logs
# included) stays under BUILD/tests/slurm: a rerun never overwrites the evidence.
# Exit status: 0 when no run failed, 1 otherwise, 2 on bad arguments.
set -euo pipefail
runs=${N:-10}
die() {
  echo "slurm-loop: $*" >&2
  exit 2
}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number, not '$runs'"
build=$(cd "${1:-build}" 2>/dev/null && pwd) || die "no build folder ${1:-build}"
[ -f "$build/CTestTestfile.cmake" ] || die "$build is not a build folder (no CTestTestfile.cmake)"
logs=$build/tests/slurm/loop-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$logs/bin"

# The test's command line, environment, folder and time limit, one per line.
test_spec=$(cd "$build" && ctest -R '^slurm_jobs$' --show-only=json-v1 | /usr/bin/python3 -c '
import json, sys
tests = json.load(sys.stdin)["tests"]
if len(tests) != 1:
    sys.exit("slurm-loop: no test slurm_jobs in this build")
test = tests[0]
props = {p["name"]: p["value"] for p in test.get("properties", [])}
print(int(props.get("TIMEOUT", 400)))
print(props.get("WORKING_DIRECTORY", "."))
print(" ".join(props.get("ENVIRONMENT", [])))
print("\n".join(test["command"]))') || die "could not read slurm_jobs from $build"
mapfile -t spec <<<"$test_spec"
limit_s=${spec[0]} workdir=${spec[1]}
read -r -a environment <<<"${spec[2]}"
command=("${spec[@]:3}")
# The binaries are the command's 3rd and 4th words (bash slurm_test.sh SUPEROPT MAKE_COST_FIXTURE ...).
for i in 2 3; do
  cp "${command[$i]}" "$logs/bin/"
  command[i]=$logs/bin/$(basename "${command[$i]}")
done

passed=0 failed=0 skipped=0 durations=()
for i in $(seq 1 "$runs"); do
  log=$logs/run-$i.log
  start=$EPOCHREALTIME
  rc=0
  (cd "$workdir" && env "${environment[@]}" timeout -k 10 "$limit_s" "${command[@]}") >"$log" 2>&1 || rc=$?
  seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  durations+=("$seconds")
  if [ $rc = 77 ]; then
    skipped=$((skipped + 1))
    echo "run $i/$runs: skipped in $seconds s: $(head -c 200 "$log")"
  elif [ $rc = 0 ] && grep -q '^slurm_test: ok' "$log" && ! grep -q FAIL "$log"; then
    passed=$((passed + 1))
    echo "run $i/$runs: passed in $seconds s"
  else
    failed=$((failed + 1))
    why=$(grep -m1 'FAIL' "$log" | cut -c1-240 || true)
    [ $rc != 124 ] || why="timed out after $limit_s s; $why"
    echo "run $i/$runs: FAILED (exit $rc) in $seconds s: ${why:-no FAIL line} (log: $log)"
  fi
done
sorted=$(printf '%s\n' "${durations[@]}" | sort -n)
echo "slurm-loop: $passed of $runs passed, $failed failed, $skipped skipped;" \
  "seconds min $(head -1 <<<"$sorted"), median $(sed -n "$(((runs + 1) / 2))p" <<<"$sorted")," \
  "max $(tail -1 <<<"$sorted"); logs in $logs"
[ $failed = 0 ]
