#!/usr/bin/env bash
# TASO Figure 7 on a GPU: end-to-end batch-1 inference latency per model, our runtime on the input
# and the optimized graph, with PyTorch eager and torch.compile on the same graphs beside them.
# Runs scripts/bench/gpu.sh (which measures the operator costs the optimizer uses) and writes
# end-to-end.csv, end-to-end.png (when this Python has matplotlib) and the table into --out.
#   scripts/reproduce/end-to-end.sh [--out DIR] [--superopt BIN] [--rules FILE] [--allow-unverified]
#       [--models "resnet50 nasnet_a resnext50 nasrnn bert"] [--repeat 1000] [--time-limit S]
#   scripts/reproduce/end-to-end.sh --plot-only CSV [--out DIR]   (the PNG from a CSV made on a GPU)
# Needs a CUDA GPU (exits 2 without one); about 10 minutes on an H100 at 1,000 repeats. On a GPU
# machine without Debian's libraries, the prepared run does all 14 models, with onnxruntime beside
# PyTorch (scripts/bench/README.md, "On a GPU machine"):
#   bash .device-bundle/run-gpu.sh   -> $OUT/results.csv and end-to-end.png
# and --plot-only draws the same figure from that results.csv.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
usage="usage: $0 [--out DIR] [--superopt BIN] [--rules FILE] [--allow-unverified] [--models \"A B\"] [--repeat N] [--time-limit S] | --plot-only CSV [--out DIR]"
out=${OUT:-$root/scripts/reproduce/out}
models="resnet50 nasnet_a resnext50 nasrnn bert"  # Figure 7's order
repeat=1000  # TASO averages 1,000 runs
plot_only=
bench_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --superopt) export SUPEROPT=$2; shift 2 ;;
    --rules|--time-limit) bench_args+=("$1" "$2"); shift 2 ;;
    --allow-unverified) bench_args+=("$1"); shift ;;
    --models) models=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --plot-only) plot_only=$2; shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"

# The first python that has matplotlib draws; Debian's /usr/bin/python3 here has it.
plot() {
  for py in ${PYTHON:-} /usr/bin/python3 python3; do
    if command -v "$py" >/dev/null && "$py" -c "import matplotlib" 2>/dev/null; then
      "$py" "$root/scripts/reproduce/end_to_end_plot.py" "$1" "$out/end-to-end.png"
      return
    fi
  done
  echo "end-to-end.sh: no Python with matplotlib here; make the PNG elsewhere with: $0 --plot-only $1" >&2
}

if [ -n "$plot_only" ]; then
  [ -f "$plot_only" ] || { echo "end-to-end.sh: no such CSV: $plot_only" >&2; exit 2; }
  plot "$plot_only"
  exit 0
fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "end-to-end.sh: needs a CUDA GPU (nvidia-smi finds none); with a CSV from a GPU run, --plot-only CSV draws the chart" >&2
  exit 2
fi

bash "$root/scripts/bench/gpu.sh" --models "$models" --repeat "$repeat" --out "$out/end-to-end-run" "${bench_args[@]}"
cp "$out/end-to-end-run/gpu.csv" "$out/end-to-end.csv"
cp "$out/end-to-end-run/machine.txt" "$out/end-to-end-machine.txt"
plot "$out/end-to-end.csv"
echo "wrote $out/end-to-end.csv${out:+ and $out/end-to-end.png}" >&2
