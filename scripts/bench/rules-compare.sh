#!/usr/bin/env bash
# What a change of rule database does to the optimizer: every builtin model
# optimized with database A and with database B back to back (interleaved, so
# load changes hit both alike), analytic H100 costs; the cost found, the rules
# applied and the search's seconds side by side, and B's cost over A's.
# Issue 32 used it for taso-3.h5 before and after size families.
#   scripts/bench/rules-compare.sh A.h5 B.h5 [--time-limit 60] [--models "bert nasrnn"]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: $0 A.h5 B.h5 [--time-limit S] [--models \"A B\"]" >&2; exit 2; }
a=$1 b=$2
shift 2
time_limit=60
models="resnet50 resnext50 nasnet_a nasrnn bert inception_v3 squeezenet resnet34 sru alexnet vgg16 resnet18 resnet_blocks:4 inceptione_blocks:4"
while [ $# -gt 0 ]; do
  case $1 in
    --time-limit) time_limit=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    *) echo "usage: $0 A.h5 B.h5 [--time-limit S] [--models \"A B\"]" >&2; exit 2 ;;
  esac
done
for f in "$a" "$b"; do [ -f "$f" ] || { echo "rules-compare.sh: no such database: $f" >&2; exit 2; }; done
source scripts/bench/common.sh
echo "machine: $machine; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A: $a; B: $b; optimize --time-limit $time_limit, analytic:h100, default budget"
for model in $models; do
  for side in a b; do
    rules=$a
    [ $side = b ] && rules=$b
    build/superopt optimize "builtin:$model" --rules "$rules" --time-limit "$time_limit" --json \
      >"$work/$model-$side.json"
  done
done
/usr/bin/python3 - "$work" $models <<'PY'
import json, sys
work, models = sys.argv[1], sys.argv[2:]
print("| model | input ms | A: ms (applied, search s) | B: ms (applied, search s) | B/A cost |")
print("|---|---:|---:|---:|---:|")
for m in models:
    r = {s: json.load(open(f"{work}/{m}-{s}.json")) for s in "ab"}
    cell = lambda x: f"{x['cost_after']:.4f} ({x['applications']}, {x['search_seconds']:.1f})"
    print(f"| {m} | {r['a']['cost_before']:.4f} | {cell(r['a'])} | {cell(r['b'])} | {r['b']['cost_after'] / r['a']['cost_after']:.4f} |")
PY
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
