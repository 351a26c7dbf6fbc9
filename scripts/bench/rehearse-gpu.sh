#!/usr/bin/env bash
# CI rehearsal of the GPU run (issue 33): scripts/bench/run-gpu.sh --cpu --quick, then checks that
# it wrote its outputs and one results.csv row per model with our runtime's time and a passed
# check. Exit 77 (skipped) without a Python that imports torch; prints "gpu_rehearsal: ok" or
# "gpu_rehearsal: FAIL ...".
#   scripts/bench/rehearse-gpu.sh OUTDIR [run-gpu.sh options]   ($SUPEROPT: the binary; $PYTHON)
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [run-gpu.sh options]" >&2; exit 2; }
out=$1; shift
repo=$(cd "$(dirname "$0")/../.." && pwd)
found=
for py in ${PYTHON:-} /usr/bin/python3 python3; do
  command -v "$py" >/dev/null && "$py" -c "import torch" 2>/dev/null && { found=$(command -v "$py"); break; }
done
[ -n "$found" ] || { echo "skipped: no Python imports torch (the rehearsal times PyTorch beside our runtime)"; exit 77; }
export PYTHON=$found
rm -rf "$out"
mkdir -p "$out"
models=${REHEARSAL_MODELS:-squeezenet nasrnn sru}
cd "$repo" && bash scripts/bench/run-gpu.sh --cpu --quick --models "$models" --out "$out" "$@"
rc=$?
fail() { echo "gpu_rehearsal: FAIL: $*"; exit 1; }
[ $rc -le 1 ] || fail "run-gpu.sh exit $rc"
for f in summary.txt results.csv logs.tar.gz; do [ -s "$out/$f" ] || fail "no $f in $out"; done
ls "$out"/*.h5 >/dev/null 2>&1 || fail "no cost table (*.h5) in $out"
"$PYTHON" -c "import matplotlib" 2>/dev/null && { [ -s "$out/end-to-end.png" ] || fail "no end-to-end.png"; }
[ "$(ls "$out" | wc -l)" -le 8 ] || fail "more than 8 files in $out"
"$PYTHON" - "$out/results.csv" "$models" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
models = sys.argv[2].split()
problems = []
if [r["model"] for r in rows] != models:
    problems.append(f"rows {[r['model'] for r in rows]}, expected {models}")
for r in rows:
    for column in ("input_median_ms", "optimized_median_ms", "torch_eager_median_ms", "input_op_sum_ms"):
        if not r.get(column):
            problems.append(f"{r['model']}: no {column} ({r.get('failures') or 'no failure recorded'})")
    if r.get("check") != "pass":
        problems.append(f"{r['model']}: check {r.get('check') or 'missing'}")
if problems:
    print("gpu_rehearsal: FAIL: " + "; ".join(problems))
    sys.exit(1)
print(f"gpu_rehearsal: ok ({len(rows)} rows in {sys.argv[1]})")
PY
