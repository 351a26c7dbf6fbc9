#!/usr/bin/env bash
# Fuzzes every input format under AddressSanitizer and UndefinedBehaviorSanitizer:
# builds the libFuzzer harnesses of tests/fuzz/ (clang-14, -DSUPEROPT_FUZZ=ON) in
# their own build folder, runs each for RUNS inputs (default 10^5) from the seed
# corpus tests/fuzz/seeds.sh assembles (tests/data/, data/), with a 10 s limit
# per input, and prints one line per harness: inputs run, crashes, sanitizer
# reports, inputs over the time limit, seconds. Findings and logs go to
# scripts/bench/out/fuzz/ (crash-*, timeout-*, oom-* files replay with
# `BUILD/tests/fuzz/NAME_fuzz FILE`). Exit 1 when anything was found.
#   scripts/bench/fuzz.sh [--runs N] [--jobs N] [HARNESS...]
#   BUILD_DIR (default build-asan, the folder scripts/test.sh's sanitizer run uses)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=100000
jobs=1
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -*) echo "usage: $0 [--runs N] [--jobs N] [HARNESS...]" >&2; exit 2 ;;
    *) break ;;
  esac
done
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] ||
  harnesses=(graph_json opset axioms rule_database cost_table device_profile onnx cli)
# Longest input per harness (libFuzzer's default is the longest seed). The
# axiom parser's recursion is bounded by issue 17's depth limit, not here:
# 4096 bytes nest at most ~800 terms, which the parser handles today.
declare -A max_len=([axioms]=4096)

build=$(realpath -m "${BUILD_DIR:-build-asan}")
out=$PWD/scripts/bench/out/fuzz
bash scripts/setup-deps.sh
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DSUPEROPT_FUZZ=ON >/dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=("${h}_fuzz"); done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" make_rule_fixture make_cost_fixture \
  make_bad_rule_fixture >/dev/null
for h in "${harnesses[@]}"; do rm -rf "${out:?}/$h"; done
mkdir -p "$out"
bash tests/fuzz/seeds.sh "$PWD" "$build" "$out/seeds" >/dev/null

fuzz_one() {
  local h=$1 dir=$out/$1
  mkdir -p "$dir/corpus" "$dir/artifacts"
  local extra=()
  [ -z "${max_len[$h]:-}" ] || extra+=("-max_len=${max_len[$h]}")
  local start=$SECONDS
  "$build/tests/fuzz/${h}_fuzz" -runs="$runs" -timeout=10 -seed=1 -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="$dir/artifacts/" "${extra[@]}" "$dir/corpus" "$out/seeds/$h" >"$dir/log" 2>&1 || true
  echo $((SECONDS - start)) >"$dir/seconds"
}
export -f fuzz_one
export out runs build UBSAN_OPTIONS=print_stacktrace=1
printf '%s\n' "${harnesses[@]}" | xargs -P "$jobs" -I{} bash -c "$(declare -p max_len); fuzz_one {}"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $runs inputs per harness"
printf "%-16s %10s %8s %9s %9s %8s\n" harness executions crashes sanitizer timeouts seconds
found=0
for h in "${harnesses[@]}"; do
  dir=$out/$h
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  reports=$(grep -cE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$dir/log" || true)
  crashes=$(find "$dir/artifacts" -name 'crash-*' -o -name 'oom-*' -o -name 'leak-*' | wc -l)
  timeouts=$(find "$dir/artifacts" -name 'timeout-*' | wc -l)
  # A sanitizer report also leaves a crash file: count it once, as a report.
  crashes=$((crashes > reports ? crashes - reports : 0))
  printf "%-16s %10s %8d %9d %9d %8d\n" "$h" "${executions:-?}" "$crashes" "$reports" "$timeouts" "$(cat "$dir/seconds")"
  [ $((crashes + reports + timeouts)) -eq 0 ] || found=1
done
exit $found
