#!/usr/bin/env bash
# Benchmark of the rule generator: for --max-ops 2, 3 and 4 with the taso opset,
# on 1 and 2 MPI ranks, prints graphs, records (graphs sent, with the extra
# namings of symmetric functions), classes, candidates, rules after each
# pruning stage, wall time and peak memory (the largest rank), then projects
# graphs, memory and core-hours for 5 and 6 operators from the growth 3 -> 4.
#   scripts/bench/enumerate.sh [--max 3] [--opset FILE] [--ranks "1 2"]
set -euo pipefail
cd "$(dirname "$0")/../.."
max=4
opset=data/opsets/taso.json
rank_counts="1 2"
while [ $# -gt 0 ]; do
  case $1 in
    --max) max=$2; shift 2 ;;
    --opset) opset=$2; shift 2 ;;
    --ranks) rank_counts=$2; shift 2 ;;
    *) echo "usage: $0 [--max N] [--opset FILE] [--ranks \"1 2\"]" >&2; exit 2 ;;
  esac
done
source scripts/bench/common.sh

echo "machine: $machine"
printf "%-4s %-5s %12s %12s %12s %10s %10s %10s %8s %9s %10s\n" ops ranks graphs records classes candidates renamed common seconds peak_MiB graphs/s
for n in $(seq 2 "$max"); do
  for ranks in $rank_counts; do
    out=$work/r$n-$ranks.h5
    mpirun -n $ranks --oversubscribe build/superopt enumerate --max-ops $n --opset "$opset" --out "$out" --json \
      2>/dev/null > "$work/s$n-$ranks.json"
    /usr/bin/python3 - "$work/s$n-$ranks.json" $n $ranks <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("%-4s %-5s %12d %12d %12d %10d %10d %10d %8.1f %9.0f %10.0f" % (sys.argv[2], sys.argv[3], s["graphs"],
      s.get("records", s["graphs"]), s["classes"], s["candidates"], s["after_input_renaming"],
      s["after_common_subgraphs"], s["seconds"], s["peak_rss_bytes"] / 2**20, s["graphs"] / s["seconds"]))
PY
  done
done

# Projection from the last two sizes on the fewest ranks: counts grow by the same factor per operator.
/usr/bin/python3 - "$work" "$max" ${rank_counts%% *} <<'PY'
import json, sys
work, top, ranks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if top < 3:
    sys.exit(0)
a = json.load(open(f"{work}/s{top-1}-{ranks}.json")); b = json.load(open(f"{work}/s{top}-{ranks}.json"))
growth = b["graphs"] / a["graphs"]
rate = b["graphs"] / b["seconds"] / ranks
bytes_per_graph = b["bytes_per_graph"] + 24  # stored record plus its sort entry
print(f"\nprojection (growth x{growth:.0f} per operator, {rate:.0f} graphs/s per core, {bytes_per_graph:.0f} B per graph):")
graphs = b["graphs"]
for n in range(top + 1, 7):
    graphs *= growth
    print(f"  {n} operators: {graphs:.3g} graphs, {graphs * bytes_per_graph / 2**30:.0f} GiB in all ranks, "
          f"{graphs / rate / 3600:.1f} core-hours")
PY
