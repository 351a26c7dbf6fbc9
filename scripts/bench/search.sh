#!/usr/bin/env bash
# Benchmark of the optimizer: for every builtin model, with a 3-operator taso
# rule database and analytic:h100, prints cost before and after, speedup,
# search time and graphs explored for alpha 1 (greedy), alpha 1.05, and alpha
# 1.05 with the graph split (threshold 30), then the papers' optimizations found.
#   scripts/bench/search.sh [--rules FILE] [--allow-unverified] [--budget 1000] [--time-limit 30] [--models "bert nasrnn"]
# Without --rules it generates and verifies the database (mpirun -n 3: 2 verifier workers, a few minutes).
set -euo pipefail
cd "$(dirname "$0")/../.."
rules=
unverified=
budget=1000
time_limit=30
models="resnet50 resnext50 nasnet_a nasrnn bert inception_v3 squeezenet resnet34 sru alexnet vgg16 resnet18 resnet_blocks:4 inceptione_blocks:4"
while [ $# -gt 0 ]; do
  case $1 in
    --rules) rules=$2; shift 2 ;;
    --allow-unverified) unverified=--allow-unverified; shift ;;
    --budget) budget=$2; shift 2 ;;
    --time-limit) time_limit=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    *) echo "usage: $0 [--rules FILE] [--allow-unverified] [--budget N] [--time-limit S] [--models \"A B\"]" >&2; exit 2 ;;
  esac
done
source scripts/bench/common.sh
if [ -z "$rules" ]; then
  rules=$work/taso3.h5
  build/superopt enumerate --max-ops 3 --out "$rules" >/dev/null 2>&1
  mpirun -n 3 --oversubscribe build/superopt verify "$rules"
fi

echo "machine: $machine; rules: $rules; budget $budget; time limit $time_limit s; cost analytic:h100"
printf "%-20s %-14s %10s %10s %8s %9s %9s %6s  %s\n" model search before_ms after_ms speedup seconds explored check how
for model in $models; do
  for config in "greedy:1:0" "alpha1.05:1.05:0" "alpha1.05+split:1.05:30"; do
    IFS=: read -r name alpha split <<<"$config"
    out=$work/$(echo "$model-$name" | tr ':' '_').json
    build/superopt optimize "builtin:$model" --rules "$rules" $unverified --alpha "$alpha" \
      --split-threshold "$split" --budget "$budget" --time-limit "$time_limit" --json >"$out" 2>"$out.err" || true
    /usr/bin/python3 - "$out" "$model" "$name" <<'PY'
import json, sys
path, model, name = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception:
    print(f"{model:20s} {name:14s} FAILED: {open(path + '.err').read().strip()}")
    sys.exit(0)
c = r["check"]
print(f"{model:20s} {name:14s} {r['cost_before']:10.4f} {r['cost_after']:10.4f} {r['speedup']:7.3f}x "
      f"{r['search_seconds']:9.2f} {r['graphs_explored']:9d} {'pass' if c['passed'] else 'FAIL':>6s}  {c['how']}")
PY
  done
done

echo
echo "rules applied (alpha 1.05 with the split), by kind:"
for model in $models; do
  /usr/bin/python3 - "$work/$(echo "$model-alpha1.05+split" | tr ':' '_').json" "$model" <<'PY'
import json, sys
path, model = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception:
    sys.exit(0)
kinds = sorted(r["rules_applied"].items(), key=lambda kv: -kv[1])
print(f"{model}: " + "; ".join(f"{n}x {label}" for label, n in kinds[:6]))
PY
done
