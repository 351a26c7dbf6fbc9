#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with the bundle scripts/bench/gpu-bundle.sh
# made here carried as .device-bundle/: unpacks it, runs the GPU test binaries, then
# scripts/bench/gpu.sh (and the end-to-end chart's CSV), and leaves at most 8 files in $OUT.
#   bash .device-bundle/run-gpu.sh [--skip-tests] [--skip-bench] [gpu.sh options, e.g. --models "bert nasrnn"]
# Everything stops by $RUN_GPU_SECONDS (default 570, under the device call's 600 s), so that the
# outputs are written even when the benchmark is cut short: the table then has the models done.
# $OUT gets: summary.txt (machine, tests, the table), gpu.csv, DEVICE.h5 (measured costs: commit as
# data/costs/DEVICE.h5), results.tar.gz (every command's output), end-to-end.png when matplotlib is there.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(pwd)
out=${OUT:-$repo/gpu-out}
mkdir -p "$out"
skip_tests=0
skip_bench=0
deadline=${RUN_GPU_SECONDS:-570}
left() { echo $((deadline - SECONDS > 10 ? deadline - SECONDS - 10 : 1)); }
while [ $# -gt 0 ]; do
  case $1 in
    --skip-tests) skip_tests=1; shift ;;
    --skip-bench) skip_bench=1; shift ;;
    *) break ;;
  esac
done

work=$(mktemp -d)
tar -xzf "$here/bundle.tar.gz" -C "$work" || { echo "run-gpu.sh: cannot unpack $here/bundle.tar.gz" >&2; exit 2; }
# shellcheck disable=SC1091
source "$work/bundle/env.sh"
export SUPEROPT=$work/bundle/bin/superopt
export SUPEROPT_DATA_DIR=$repo/data  # the binary's built-in data path is this machine's checkout
# The Python with PyTorch (the GPU machines' python3; Debian's /usr/bin/python3 here).
for py in ${PYTHON:-} python3 /usr/bin/python3; do
  command -v "$py" >/dev/null && "$py" -c "import torch" 2>/dev/null && { PYTHON=$(command -v "$py"); export PYTHON; break; }
done
summary=$out/summary.txt
logs=$work/logs
mkdir -p "$logs"

{
  echo "== machine"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "no nvidia-smi"
  "$SUPEROPT" version
  "${PYTHON:-python3}" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
} >"$summary" 2>&1

status=0
if [ $skip_tests = 0 ]; then
  echo "== GPU tests (each kernel against the CPU reference)" >>"$summary"
  for t in "$work"/bundle/bin/*_test; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    limit=$(left)
    [ "$limit" -gt 120 ] && limit=120
    (cd "$repo" && timeout "$limit" "$t") >"$logs/$name.txt" 2>&1
    rc=$?
    [ $rc = 0 ] || status=1
    verdict=$(grep -E 'test cases|All tests passed' "$logs/$name.txt" | tail -1)
    [ $rc = 77 ] && verdict=$(tail -1 "$logs/$name.txt")  # the tests' no-device exit: "skipped: ..."
    echo "$name: exit $rc; $verdict" >>"$summary"
  done
fi

if [ $skip_bench = 0 ]; then
  echo "== scripts/bench/gpu.sh $*" >>"$summary"
  # gpu.sh takes data/rules/taso-3.h5, else the bundle's rules.h5.
  timeout "$(left)" bash scripts/bench/gpu.sh --out "$work/gpu" "$@" >"$logs/gpu.txt" 2>"$logs/gpu.err" || status=1
  if [ ! -f "$work/gpu/gpu.txt" ] && [ -d "$work/gpu/raw" ]; then
    # Cut short: tabulate the models that got as far as PyTorch.
    done_models=$(cd "$work/gpu/raw" && ls -- *.torch.json 2>/dev/null | sed 's/\.torch\.json$//' | tr '\n' ' ')
    [ -n "$done_models" ] && "${PYTHON:-python3}" scripts/bench/gpu_table.py --raw "$work/gpu/raw" \
      --models "$done_models" --csv "$work/gpu/gpu.csv" >"$work/gpu/gpu.txt" 2>>"$logs/gpu.err"
    echo "(cut short at $SECONDS s: $(tail -1 "$logs/gpu.err"))" >>"$summary"
  fi
  cat "$work/gpu/machine.txt" "$work/gpu/gpu.txt" >>"$summary" 2>/dev/null || tail -20 "$logs/gpu.err" >>"$summary"
  cp "$work/gpu/gpu.csv" "$out/gpu.csv" 2>/dev/null
  for table in "$work"/gpu/costs/*.h5; do [ -f "$table" ] && cp "$table" "$out/"; done
  if [ -f "$out/gpu.csv" ] && "${PYTHON:-python3}" -c "import matplotlib" 2>/dev/null; then
    "$PYTHON" scripts/reproduce/end_to_end_plot.py "$out/gpu.csv" "$out/end-to-end.png" >>"$logs/plot.txt" 2>&1
  fi
fi

kept=(logs)
[ -d "$work/gpu" ] && kept+=(gpu)
tar -czf "$out/results.tar.gz" -C "$work" "${kept[@]}"
cat "$summary"
exit $status
