#!/usr/bin/env bash
# Benchmark of the verifier: generates the --max-ops 3 database of the taso
# opset, verifies a fresh copy with 1 worker (one process) and with 2 workers
# (mpirun -n 3: rank 0 hands out rules), and prints counts per status, median
# and 95th-percentile milliseconds per rule, wall time and the speedup; then
# validates the axioms with verify-axioms on 2 ranks (obligations, wall time;
# --max-dim 4 takes about 7 minutes on 2 cores, 3 about 30 s).
#   scripts/bench/verify.sh [--max-ops 3] [--max-dim 4] [--axioms FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
max_ops=3
max_dim=4
axioms=verify/axioms/taso.ax
while [ $# -gt 0 ]; do
  case $1 in
    --max-ops) max_ops=$2; shift 2 ;;
    --max-dim) max_dim=$2; shift 2 ;;
    --axioms) axioms=$2; shift 2 ;;
    *) echo "usage: $0 [--max-ops N] [--max-dim N] [--axioms FILE]" >&2; exit 2 ;;
  esac
done
source scripts/bench/common.sh

echo "machine: $machine"
build/superopt enumerate --max-ops "$max_ops" --out "$work/base.h5" >/dev/null
printf "%-8s %7s %9s %8s %8s %10s %8s %8s %9s\n" workers rules verified refuted unknown candidate median_ms p95_ms wall_s
for workers in 1 2; do
  cp "$work/base.h5" "$work/w$workers.h5"
  if [ "$workers" = 1 ]; then
    build/superopt verify "$work/w1.h5" --axioms "$axioms" --json > "$work/w1.json"
  else
    mpirun -n $((workers + 1)) --oversubscribe build/superopt verify "$work/w$workers.h5" --axioms "$axioms" --json \
      > "$work/w$workers.json"
  fi
  /usr/bin/python3 - "$work/w$workers.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("%-8d %7d %9d %8d %8d %10d %8.2f %8.2f %9.2f" % (j["workers"], j["rules"], j["verified"], j["refuted"],
      j["unknown"], j["candidate"], j["median_ms"], j["p95_ms"], j["wall_seconds"]))
PY
done
/usr/bin/python3 - "$work/w1.json" "$work/w2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print("speedup with 2 workers: %.2fx" % (a["wall_seconds"] / b["wall_seconds"]))
PY
cmp <(/usr/bin/python3 -c "import h5py,sys; print(list(h5py.File(sys.argv[1])['rules/status'][:]))" "$work/w1.h5") \
    <(/usr/bin/python3 -c "import h5py,sys; print(list(h5py.File(sys.argv[1])['rules/status'][:]))" "$work/w2.h5") \
  && echo "same statuses with 1 and 2 workers" || echo "statuses DIFFER between 1 and 2 workers"

echo
echo "== mpirun -n 2 superopt verify-axioms --max-dim $max_dim"
mpirun -n 2 --oversubscribe build/superopt verify-axioms --axioms "$axioms" --max-dim "$max_dim" --json \
  > "$work/axioms.json" || true
/usr/bin/python3 - "$work/axioms.json" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit("verify-axioms gave no JSON: %s" % e)
t = j["totals"]
print("axioms %d: passed %d, failed %d, unknown %d; obligations %d (skipped %d); validation %.1f s" % (
    t["axioms"], t["passed"], t["failed"], t["unknown"], t["obligations"], t["skipped"], t["validation_seconds"]))
print("redundant: %d (%s); independent %d; undecided %d; %.1f s" % (len(j["redundant"]), ", ".join(j["redundant"]),
      len(j["independent"]), len(j["undecided"]), j["redundancy_seconds"]))
print("wall time: %.1f s on %d ranks" % (j["wall_seconds"], j["ranks"]))
PY
