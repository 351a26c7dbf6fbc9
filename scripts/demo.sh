#!/usr/bin/env bash
# The main job on built-in defaults: install packages and build superopt, check
# and run the bundled ResNet-50 bottleneck block on the CPU reference, generate
# the rules of TASO's operator set with up to 3 operators on 2 MPI ranks, verify
# them with 2 verifier workers, optimize every bundled model (data/models/) with
# them, and print one table: model, cost before and after, speedup, rules used,
# numerical check. Costs are the measured GPU table data/costs/*.h5 when one is
# shipped, else the analytic H100 roofline. Beside them, measured on this CPU
# with the oneDNN backend (`run --device cpu`, at the faster of 1 thread and every
# core on the input, kept for its optimized graphs): the latency of the
# input graph, of the graph optimized for the H100 column, and of the graph
# optimized with CPU costs (the shipped table data/costs/cpu-VENDOR-Nt.h5 when
# it was measured on this CPU, thread count and oneDNN, else measured on the
# spot with --cost cpu; optimize then times the input against its best graphs
# and never returns a slower one). Measured columns carry their spread (IQR), and
# no CPU speedup is printed where it is within it. About 8 minutes on 2 cores
# after the build, which makes only the superopt binary (the tests and the
# Python package are `bash scripts/build.sh` or `scripts/test.sh`).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_TARGETS=superopt bash scripts/build.sh
build=${BUILD_DIR:-build}
superopt=$build/superopt
example=data/graphs/resnet_bottleneck.json
rules=$build/demo-rules.h5
if [ "$(id -u)" = 0 ]; then  # containers often run as root, which Open MPI refuses unless told
  echo "demo.sh: running as root: exporting OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 for mpirun"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "demo.sh: mpirun runs with --oversubscribe (more ranks than this machine's $(nproc) cores)"

cost=analytic:h100
for table in data/costs/h100.h5 data/costs/h200.h5; do
  if [ -f "$table" ]; then cost=table:$table; break; fi
done

echo "== superopt graph check $example"
"$superopt" graph check "$example"
echo
echo "== superopt graph run $example"
"$superopt" graph run "$example"
echo
echo "== mpirun -n 2 superopt enumerate --max-ops 3 (TASO's operator set)"
mpirun -n 2 --oversubscribe "$superopt" enumerate --max-ops 3 --out "$rules" --force
echo
echo "== mpirun -n 3 superopt verify (2 verifier workers)"
mpirun -n 3 --oversubscribe "$superopt" verify "$rules"
echo
echo "== superopt derive (rules proven by rewriting with earlier proven ones; the minimal set)"
"$superopt" derive "$rules"
echo
echo "== superopt db info $rules"
"$superopt" db info "$rules"
echo
models=$(ls data/models/*.json | xargs -n1 basename | sed 's/\.json$//')
echo "== superopt optimize data/models/*.json (verified rules, $cost, alpha 1.05, graph split at 30, budget 1000)"
for model in $models; do
  "$superopt" optimize "data/models/$model.json" --rules "$rules" --cost "$cost" --json \
    --out "$build/demo-$model.opt.json" >"$build/demo-$model.json" 2>"$build/demo-$model.err" || true
done

vendor=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | awk '{print tolower($1)}')
cpu_table=data/costs/cpu-${vendor:-unknown}-$(nproc)t.h5
cpu_cost=cpu
# The shipped table only where it was measured here (same CPU, threads, oneDNN: no warning).
if [ -f "$cpu_table" ] &&
  ! "$superopt" graph check data/models/sru.json --cost "table:$cpu_table" 2>&1 >/dev/null | grep -q warning; then
  cpu_cost=table:$cpu_table
fi
echo "== measured CPU latency (run --device cpu, median of 5 ± IQR; threads: the faster of 1 and $(nproc) on each input, its optimized graphs at the same count); CPU-cost optimization with $cpu_cost"
for model in $models; do
  # With CPU costs optimize times the input and its best graphs end to end and never returns a slower one.
  "$superopt" optimize "data/models/$model.json" --rules "$rules" --cost "$cpu_cost" --time-limit 10 \
    --out "$build/demo-$model.cpu-opt.json" --json >"$build/demo-$model.cpu-opt.optimize.json" 2>/dev/null || true
  threads=()  # the input's choice (run without --threads times 1 and every core), then kept
  for g in "data/models/$model.json:in" "$build/demo-$model.opt.json:h100" "$build/demo-$model.cpu-opt.json:cpu"; do
    file=${g%:*} run_json=$build/demo-$model.run-${g##*:}.json
    [ -f "$file" ] || continue
    "$superopt" run "$file" --device cpu "${threads[@]}" --repeat 5 --warmup 1 --json >"$run_json" 2>/dev/null || true
    [ ${#threads[@]} -gt 0 ] ||
      threads=(--threads "$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["threads"])' \
        "$run_json" 2>/dev/null || nproc)")
  done
done
/usr/bin/python3 - "$build" $models <<'PY'
import json, sys
build, models = sys.argv[1], sys.argv[2:]
def run_of(m, which):
    try:
        return json.load(open(f"{build}/demo-{m}.run-{which}.json"))
    except (OSError, ValueError):
        return None
def cpu_ms(m, which):
    r = run_of(m, which)
    return "%13s" % ("%.2f±%.2f" % (r["median_ms"], r["spread"]["iqr_ms"]) if r else "-")
def kept_input(m):
    try:
        return json.load(open(f"{build}/demo-{m}.cpu-opt.optimize.json"))["end_to_end"]["returned_input"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
def cpu_gain(m):
    """input / CPU-optimized, only when the difference exceeds both runs' IQR: within it, noise. Where
    optimize kept the input the two columns time the same graph: no ratio (it would be the load's)."""
    a, b = run_of(m, "in"), run_of(m, "cpu")
    if not a or not b:
        return "%9s" % "-"
    if kept_input(m):
        return "%9s" % "same"
    if abs(a["median_ms"] - b["median_ms"]) <= max(a["spread"]["iqr_ms"], b["spread"]["iqr_ms"]):
        return "%9s" % "noise"
    return "%8.2fx" % (a["median_ms"] / b["median_ms"])
print("%-20s %10s %10s %8s %6s %13s %13s %13s %9s  %s" % ("model", "before_ms", "after_ms", "speedup", "rules",
      "cpu_in_ms", "cpu_h100_ms", "cpu_cpu_ms", "cpu_gain", "numerical check"))
failed = 0
for m in models:
    try:
        j = json.load(open(f"{build}/demo-{m}.json"))
    except (OSError, ValueError):
        failed += 1
        print("%-20s FAILED: %s" % (m, open(f"{build}/demo-{m}.err").read().strip()))
        continue
    c = j["check"]
    status = c["status"]  # passed, failed, or not checked (cut short before any operator)
    failed += status == "failed"
    error = "max relative error %.1e, " % c["max_relative_error"] if status != "not checked" else ""
    print("%-20s %10.4f %10.4f %7.3fx %6d %s %s %s %s  %s (%s%s)" % (
        m, j["cost_before"], j["cost_after"], j["speedup"], sum(j["rules_applied"].values()),
        cpu_ms(m, "in"), cpu_ms(m, "h100"), cpu_ms(m, "cpu"), cpu_gain(m),
        "FAILED" if status == "failed" else status, error, c["how"]))
kept = [m for m in models if kept_input(m)]
print("before_ms/after_ms/speedup: the optimizer's cost model (the H100 column), not measured.\n"
      "cpu_in_ms, cpu_h100_ms, cpu_cpu_ms: measured on this CPU (run --device cpu, median of 5 runs ± their IQR)\n"
      "of the input graph, the graph optimized for the H100 column, and the graph optimized with CPU costs;\n"
      "cpu_gain: cpu_in / cpu_cpu, printed only when the difference exceeds the IQRs ('noise' otherwise;\n"
      "'same' where the CPU-cost optimization kept the input, so both columns time one graph).\n"
      "With CPU costs, optimize timed each input against its best graphs, interleaved, and kept the input\n"
      "where none was faster beyond the noise: %s." % (", ".join(kept) or "none"))
sys.exit(1 if failed else 0)
PY
