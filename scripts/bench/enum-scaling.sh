#!/usr/bin/env bash
# Scaling of the rule generator (issue 20): for one operator count, the
# speed-up from 1 to 2 ranks (wall time and CPU time), and on 2, 4 and 8 ranks
# (oversubscribed on a small machine, so only the communication figures mean
# anything) the bytes sent between ranks per graph, the largest rank's share
# of the graphs made and of the records owned against the mean, and messages
# per rank; then the same run with a memory bound that forces spilling, for
# its time, peak memory and disk. Every database must equal the 1-rank one.
#   scripts/bench/enum-scaling.sh [--max-ops 3] [--opset FILE] [--ranks "1 2 4 8"] [--bound 8M]
set -euo pipefail
cd "$(dirname "$0")/../.."
max_ops=3
opset=data/opsets/taso.json
rank_counts="1 2 4 8"
bound=8M
while [ $# -gt 0 ]; do
  case $1 in
    --max-ops) max_ops=$2; shift 2 ;;
    --opset) opset=$2; shift 2 ;;
    --ranks) rank_counts=$2; shift 2 ;;
    --bound) bound=$2; shift 2 ;;
    *) echo "usage: $0 [--max-ops N] [--opset FILE] [--ranks \"1 2 4 8\"] [--bound BYTES]" >&2; exit 2 ;;
  esac
done
source scripts/bench/common.sh

run() {  # run NAME RANKS [ARGS...]: one enumeration, its summary in $work/NAME.json, CPU seconds in NAME.cpu
  name=$1 ranks=$2
  shift 2
  /usr/bin/time -f "%U %S" -o "$work/$name.cpu" mpirun -n "$ranks" --oversubscribe build/superopt enumerate \
    --max-ops "$max_ops" --opset "$opset" --out "$work/$name.h5" --json "$@" 2>/dev/null >"$work/$name.json"
  if [ "$name" != r1 ]; then
    h5diff "$work/r1.h5" "$work/$name.h5" /rules /rules >/dev/null && h5diff "$work/r1.h5" "$work/$name.h5" /stages /stages >/dev/null ||
      { echo "FAIL: $name gives another database than 1 rank"; exit 1; }
  fi
}

echo "machine: $machine, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$max_ops operators, $opset"
for ranks in $rank_counts; do run r$ranks $ranks; done
run bounded 2 --memory-per-rank "$bound" --scratch "$work/scratch"

/usr/bin/python3 - "$work" $rank_counts <<'PY'
import json, sys
work, counts = sys.argv[1], sys.argv[2:]
def load(name):
    s = json.load(open(f"{work}/{name}.json"))
    user, system = map(float, open(f"{work}/{name}.cpu").read().split()[-2:])
    s["cpu"] = user + system
    return s
base = load("r1")
print(f"graphs {base['graphs']:,}, classes {base['classes']:,}, rules {base['rules']:,}; "
      "the database is the same on every rank count")
print("%-6s %9s %9s %8s %11s %10s %12s %12s %13s" % ("ranks", "wall_s", "cpu_s", "speedup", "bytes/graph",
      "msgs/rank", "max_msgs", "graphs_max", "records_max"))
for name in [f"r{n}" for n in counts] + ["bounded"]:
    s = load(name)
    n = s["ranks"]
    print("%-6s %9.1f %9.1f %8.2f %11.2f %10.0f %12d %11.3fx %12.3fx" % (
        f"{n}" + (" (bound)" if name == "bounded" else ""), s["seconds"], s["cpu"], base["seconds"] / s["seconds"],
        s["bytes_sent"] / s["graphs"], s["messages_sent"] / n, s["max_messages_sent"],
        s["max_rank_graphs"] / (s["graphs"] / n), s["max_rank_record_bytes"] / (s["record_bytes"] / n)))
b = load("bounded")
print(f"\nbounded run (2 ranks): peak {b['peak_rss_bytes'] / 2**20:.0f} MiB per rank (unbounded "
      f"{load('r2')['peak_rss_bytes'] / 2**20:.0f} MiB), {b['spilled_runs']} runs, "
      f"{b['max_spilled_bytes'] / 2**20:.1f} MiB spilled by the largest rank, {b['seconds']:.1f} s")
PY
