#!/usr/bin/env bash
# Issue 19's pipeline benchmark: a fully decided, minimal rule set from scratch.
# enumerate (R ranks) -> verify (derive first, Z3 for the rest; R+1 ranks: R
# workers) -> derive (minimize; R+1 ranks). Prints each stage's wall time,
# CPU time and peak memory per process, the statuses after each stage, how many
# rules Z3 decided and its median time, and the minimal set; with --compare-z3
# also verify --no-derive (Z3 on every rule) on a copy, side by side;
# --wave-rules N is verify's (0: a whole size per wave, as before waves).
# --memory-per-rank M bounds the generator's memory per rank (it spills sorted
# runs to a scratch folder in the work folder): the 4-operator target is 8 GB.
# --opset FILE: another operator set (default data/opsets/taso.json; issue
# 20's 5-operator run: --opset data/opsets/matmul-2d.json --max-ops 5
# --derive-steps 2, as data/rules/matmul-2d-5.h5 was minimized).
# --derive-steps N is derive's --max-steps (default: derive's own).
# --superopt BIN runs that binary instead of building build/superopt (an
# installed copy: scripts/get-rules.sh rebuilds a database with it).
#   scripts/bench/rules-pipeline.sh [--max-ops 3] [--ranks 2] [--opset FILE] [--memory-per-rank M] [--wave-rules N] [--derive-steps N] [--superopt BIN] [--compare-z3] [--keep FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
max_ops=3
ranks=2
opset=data/opsets/taso.json
compare=
keep=
bound=()
waves=()
steps=()
superopt=build/superopt
while [ $# -gt 0 ]; do
  case $1 in
    --max-ops) max_ops=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --opset) opset=$2; shift 2 ;;
    --compare-z3) compare=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    --memory-per-rank) bound=(--memory-per-rank "$2"); shift 2 ;;
    --wave-rules) waves=(--wave-rules "$2"); shift 2 ;;
    --derive-steps) steps=(--max-steps "$2"); shift 2 ;;
    --superopt) superopt=$2; export NO_BUILD=1; shift 2 ;;
    *) echo "usage: $0 [--max-ops N] [--ranks R] [--opset FILE] [--memory-per-rank M] [--wave-rules N] [--derive-steps N] [--superopt BIN] [--compare-z3] [--keep FILE]" >&2; exit 2 ;;
  esac
done
source scripts/bench/common.sh
db=$work/rules.h5

# stage NAME COMMAND...: runs it under /usr/bin/time, prints wall, CPU, peak RSS.
stage() {
  local name=$1
  shift
  # On failure the ranks' own lines first: mpirun's epilogue would push them
  # out of a plain tail (a missing data folder read as a bare mpirun abort).
  /usr/bin/time -f "%e %U %S %M" -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" || {
    echo "$name FAILED:"; grep -m 3 "^superopt" "$work/$name.err" || tail -5 "$work/$name.err"; exit 1; }
  read -r wall user sys rss <"$work/$name.time"
  printf "%-10s wall %8.1f s   cpu %8.1f s   peak %6d MiB per process\n" "$name" "$wall" \
    "$(awk "BEGIN{print $user + $sys}")" $((rss / 1024))
}

statuses() {
  /usr/bin/python3 - "$1" <<'PY'
import h5py, sys
s = list(h5py.File(sys.argv[1], "r")["rules/status"][:])
names = ["candidate", "verified", "refuted", "unknown", "derived"]
print("    " + ", ".join(f"{n} {s.count(i)}" for i, n in enumerate(names)) + f"; {len(s)} rules")
PY
}

echo "machine: $machine; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "opset $opset, $max_ops operators, $ranks ranks ${bound[*]}"
[ ${#bound[@]} -gt 0 ] && bound+=(--scratch "$work/scratch")
start=$(date +%s)
stage enumerate mpirun -n "$ranks" --oversubscribe "$superopt" enumerate --max-ops "$max_ops" --opset "$opset" --out "$db" --force "${bound[@]}"
statuses "$db"
[ -n "$compare" ] && cp "$db" "$work/z3-only.h5"
stage verify mpirun -n $((ranks + 1)) --oversubscribe "$superopt" verify "$db" "${waves[@]}" --json
statuses "$db"
/usr/bin/python3 - "$work/verify.out" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print(f"    derived {j['derived_this_run']} of {j['checked']} ({j['derived_from_same_size']} from same-size rules); Z3 decided {j['checked'] - j['derived_this_run']}: "
      f"median {j['z3_median_ms']:.2f} ms, p95 {j['z3_p95_ms']:.2f} ms (validation and proof)")
PY
stage derive mpirun -n $((ranks + 1)) --oversubscribe "$superopt" derive "$db" "${steps[@]}" --json
statuses "$db"
/usr/bin/python3 - "$work/derive.out" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print(f"    minimal set {j['minimal_set']} rules; by steps {j.get('derived_by_steps', {})}")
PY
echo "total wall $(($(date +%s) - start)) s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$compare" ]; then
  stage z3-only mpirun -n $((ranks + 1)) --oversubscribe "$superopt" verify "$work/z3-only.h5" --no-derive --json
  statuses "$work/z3-only.h5"
fi
[ -n "$keep" ] && cp "$db" "$keep" && echo "kept $keep"
exit 0
