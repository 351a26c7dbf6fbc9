#!/usr/bin/env bash
# The main job on built-in defaults: build superopt, check and run the bundled
# ResNet-50 bottleneck block on the CPU reference, generate the rules of TASO's
# operator set with up to 3 operators on 2 MPI ranks, verify them with 2
# verifier workers, and optimize three of the papers' models with them
# (analytic H100 costs), printing one line per model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
build=${BUILD_DIR:-build}
superopt=$build/superopt
example=data/graphs/resnet_bottleneck.json
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # containers often run as root

echo "== superopt graph check $example"
"$superopt" graph check "$example"
echo
echo "== superopt graph run $example"
"$superopt" graph run "$example"
echo
echo "== mpirun -n 2 superopt enumerate --max-ops 3 (TASO's operator set)"
mpirun -n 2 --oversubscribe "$superopt" enumerate --max-ops 3 --out "$build/demo-rules.h5" --force
echo
echo "== superopt db info $build/demo-rules.h5"
"$superopt" db info "$build/demo-rules.h5"
echo
echo "== mpirun -n 3 superopt verify (2 verifier workers)"
mpirun -n 3 --oversubscribe "$superopt" verify "$build/demo-rules.h5"
echo
echo "== superopt optimize (verified rules, analytic:h100, alpha 1.05, graph split at 30)"
printf "%-12s %12s %12s %8s %6s  %s\n" model before_ms after_ms speedup rules check
for model in nasrnn bert squeezenet; do
  "$superopt" optimize "builtin:$model" --rules "$build/demo-rules.h5" --json > "$build/demo-$model.json"
  /usr/bin/python3 - "$build/demo-$model.json" "$model" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["check"]
print("%-12s %12.4f %12.4f %7.3fx %6d  %s (max relative error %.1e, %s)" % (sys.argv[2], j["cost_before"],
      j["cost_after"], j["speedup"], sum(j["rules_applied"].values()), "passed" if c["passed"] else "FAILED",
      c["max_relative_error"], c["how"]))
PY
done
