#!/usr/bin/env bash
# Backtracking against equality saturation (issue 35): for every bundled model,
# `optimize builtin:M --rules RULES --cost COST [--search eqsat] --e2e-rounds 0 --json`,
# with cost after, search seconds, wall seconds, peak memory (/usr/bin/time -v)
# and, for eqsat, the e-graph's size, iterations, stop reason and extraction.
#   scripts/bench/eqsat.sh [--rules data/rules/taso-3.h5] [--extra "--minimal-rules"] [--time-limit 60]
#                          [--models "nasrnn bert"] [--cost analytic:h100|table:data/costs/cpu-amd-1t.h5]
# NO_BUILD=1 uses build/superopt as it is (common.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
rules=data/rules/taso-3.h5
extra=
time_limit=60
cost=analytic:h100
models="resnet50 resnext50 nasnet_a nasrnn bert inception_v3 squeezenet resnet34 sru alexnet vgg16 resnet18 resnet_blocks:4 inceptione_blocks:4"
while [ $# -gt 0 ]; do
  case $1 in
    --rules) rules=$2; shift 2 ;;
    --extra) extra=$2; shift 2 ;;
    --time-limit) time_limit=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --cost) cost=$2; shift 2 ;;
    *) echo "usage: $0 [--rules FILE] [--extra \"FLAGS\"] [--time-limit S] [--models \"A B\"] [--cost SPEC]" >&2; exit 2 ;;
  esac
done
source scripts/bench/common.sh

echo "machine: $machine; load average $(cut -d' ' -f1-3 /proc/loadavg); rules: $rules $extra; time limit $time_limit s; cost $cost"
printf "| %-18s | %-12s | %10s | %8s | %8s | %7s | %7s | %s |\n" model search after_ms speedup search_s wall_s peak_MB e-graph
printf "|---|---|---:|---:|---:|---:|---:|---|\n"
for model in $models; do
  for search in backtracking eqsat; do
    out=$work/$(echo "$model-$search" | tr ':' '_').json
    /usr/bin/time -v -o "$out.time" build/superopt optimize "builtin:$model" --rules "$rules" $extra \
      --cost "$cost" --search "$search" --e2e-rounds 0 --time-limit "$time_limit" --json >"$out" 2>"$out.err" || true
    /usr/bin/python3 - "$out" "$model" "$search" <<'PY'
import json, re, sys
path, model, search = sys.argv[1:4]
t = open(path + ".time").read()
wall = t.split("Elapsed (wall clock) time (h:mm:ss or m:ss): ")[1].split("\n")[0].split(":")
wall_s = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
peak_mb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024
try:
    r = json.load(open(path))
except ValueError:
    print(f"| {model:18} | {search:12} | failed: {open(path + '.err').read().strip()[:80]} |")
    sys.exit(0)
e = r.get("eqsat") or {}
graph = ""
if e:
    graph = (f"{e['nodes']} nodes, {e['classes']} classes, {e['iterations']} it in {e.get('rounds', 1)} rounds ({e['stop_reason']}), "
             f"{e['extraction']} {e['extraction_seconds']:.1f} s"
             + (f" ({e['ilp_status']}, gap {100 * e['ilp_gap']:.1f} %)" if e['ilp_status'] else "")
             + (f", polish kept {e['polish_kept']} of {e['polish_trials']}" if e.get("polish_trials") else "")
             + (" FELL BACK" if e["fell_back"] else ""))
check = "" if r["check"]["passed"] else " CHECK FAILED"
print(f"| {model:18} | {search:12} | {r['cost_after']:10.4f} | {r['speedup']:7.4f}x | {r['search_seconds']:8.1f} | "
      f"{wall_s:7.1f} | {peak_mb:7.0f} | {graph}{check} |")
PY
  done
done
