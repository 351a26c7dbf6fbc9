#!/usr/bin/env bash
# Issue 19 item 4: the optimizer with every proven rule against the minimal set
# alone (`optimize --minimal-rules`), on every builtin model: the cost found
# and the search's seconds, the two runs of a model back to back (interleaved,
# so load changes hit both alike), the median of --repeat runs of each.
#   scripts/bench/rule-choice.sh [--rules data/rules/taso-3.h5] [--time-limit 60] [--repeat 1] [--models "bert nasrnn"]
set -euo pipefail
cd "$(dirname "$0")/../.."
rules=data/rules/taso-3.h5
time_limit=60
repeat=1
models="resnet50 resnext50 nasnet_a nasrnn bert inception_v3 squeezenet resnet34 sru alexnet vgg16 resnet18 resnet_blocks:4 inceptione_blocks:4"
while [ $# -gt 0 ]; do
  case $1 in
    --rules) rules=$2; shift 2 ;;
    --time-limit) time_limit=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    *) echo "usage: $0 [--rules FILE] [--time-limit S] [--repeat N] [--models \"A B\"]" >&2; exit 2 ;;
  esac
done
source scripts/bench/common.sh
echo "machine: $machine; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rules: $rules; optimize --time-limit $time_limit, analytic:h100, default budget; median of $repeat"
for model in $models; do
  for run in $(seq 1 "$repeat"); do
    for choice in all minimal; do
      flag=
      [ $choice = minimal ] && flag=--minimal-rules
      build/superopt optimize "builtin:$model" --rules "$rules" $flag --time-limit "$time_limit" --json \
        >"$work/$model-$choice-$run.json"
    done
  done
done
/usr/bin/python3 - "$work" "$repeat" $models <<'PY'
import json, statistics, sys
work, repeat, models = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def runs(model, choice):
    return [json.load(open(f"{work}/{model}-{choice}-{k}.json")) for k in range(1, repeat + 1)]
print("| model | all proven: ms (search s) | minimal: ms (search s) | minimal/all cost |")
print("|---|---:|---:|---:|")
for m in models:
    cells, costs = [], []
    for choice in ("all", "minimal"):
        r = runs(m, choice)
        cost = statistics.median(x["cost_after"] for x in r)
        secs = statistics.median(x["search_seconds"] for x in r)
        cells.append(f"{cost:.4f} ({secs:.2f})")
        costs.append(cost)
    print(f"| {m} | {cells[0]} | {cells[1]} | {costs[1] / costs[0]:.4f} |")
PY
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
