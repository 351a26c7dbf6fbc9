#!/usr/bin/env bash
# The main job on built-in defaults: install packages and build superopt, check
# and run the bundled ResNet-50 bottleneck block on the CPU reference, generate
# the rules of TASO's operator set with up to 3 operators on 2 MPI ranks, verify
# them with 2 verifier workers, optimize every bundled model (data/models/) with
# them, and print one table: model, cost before and after, speedup, rules used,
# numerical check. Costs are the measured GPU table data/costs/*.h5 when one is
# shipped, else the analytic H100 roofline. About 5 minutes on 2 cores after
# the build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
build=${BUILD_DIR:-build}
superopt=$build/superopt
example=data/graphs/resnet_bottleneck.json
rules=$build/demo-rules.h5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # containers often run as root

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
    >"$build/demo-$model.json" 2>"$build/demo-$model.err" || true
done
/usr/bin/python3 - "$build" $models <<'PY'
import json, sys
build, models = sys.argv[1], sys.argv[2:]
print("%-20s %10s %10s %8s %6s  %s" % ("model", "before_ms", "after_ms", "speedup", "rules", "numerical check"))
failed = 0
for m in models:
    try:
        j = json.load(open(f"{build}/demo-{m}.json"))
    except (OSError, ValueError):
        failed += 1
        print("%-20s FAILED: %s" % (m, open(f"{build}/demo-{m}.err").read().strip()))
        continue
    c = j["check"]
    failed += not c["passed"]
    print("%-20s %10.4f %10.4f %7.3fx %6d  %s (max relative error %.1e, %s)" % (
        m, j["cost_before"], j["cost_after"], j["speedup"], sum(j["rules_applied"].values()),
        "passed" if c["passed"] else "FAILED", c["max_relative_error"], c["how"]))
sys.exit(1 if failed else 0)
PY
