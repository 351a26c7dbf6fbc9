#!/usr/bin/env bash
# CPU benchmark (issue 15; TASO's Figure 7 on this machine): for each bundled model, side by side
# in one run with the same thread count: our oneDNN backend on the input graph and on the graph
# optimized with the measured CPU cost table, the sum of the measured operator costs (how well
# the cost model predicts), PyTorch 1.13 eager FP32 and TorchScript (trace + freeze +
# optimize_for_inference; PyTorch's BLAS, e.g. OpenBLAS, and its threads recorded in the table,
# every BLAS threadpool held to N threads); plus the rules the optimizer applied under the CPU table and under
# analytic:h100.
#   scripts/bench/cpu.sh [--models "resnet50 bert ... FILE.onnx"] [--threads N] [--rounds R] [--repeat N]
#                        [--table FILE] [--rules FILE] [--time-limit S] [--out DIR]
# Timing: R rounds (default 4); in each, every model's four columns run one after the other with
# N timed runs (default 5) after 2 warm-up runs, so drift hits every column alike; a cell is the
# median of its R round medians (R x N >= 20 runs). Writes DIR/cpu.csv, DIR/cpu.txt (the table),
# DIR/cpu.png, DIR/rules.txt and every command's JSON under DIR/raw/ (default DIR
# scripts/bench/out/cpu). The table (default data/costs/cpu-<vendor>-<threads>t.h5) is extended
# with every signature of the input and optimized graphs it lacks; the optimizer runs with
# --cost cpu:THREADS@TABLE (the table, and every signature the search meets that it lacks
# measured on the fly, so no cost comes from a roofline), which times the input and its best
# graphs end to end and never returns one slower than the input (optimize --e2e-rounds).
# Each cell's spread is the IQR of its round medians; "slower" means slower beyond it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"

models="resnet50 resnext50 nasnet_a nasrnn bert inception_v3 squeezenet resnet34 sru alexnet vgg16 resnet18 resnet_blocks:4 inceptione_blocks:4"
threads=$(nproc)
rounds=4
repeat=5
table=
rules=data/rules/taso-3.h5
time_limit=60
out=scripts/bench/out/cpu
usage="usage: $0 [--models \"A B\"] [--threads N] [--rounds R] [--repeat N] [--table FILE] [--rules FILE] [--time-limit S] [--out DIR]"
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --table) table=$2; shift 2 ;;
    --rules) rules=$2; shift 2 ;;
    --time-limit) time_limit=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
die() { echo "cpu.sh: $*" >&2; exit 2; }
superopt=${SUPEROPT:-$repo/build/superopt}
[ -x "$superopt" ] || die "no superopt binary at $superopt: build it (scripts/build.sh) or set \$SUPEROPT"
python=${PYTHON:-/usr/bin/python3}
"$python" -c "import torch" 2>/dev/null || die "$python cannot import torch (apt-get install python3-torch)"
[ -f "$rules" ] || die "no rule database $rules"
export SUPEROPT=$superopt
vendor=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | awk '{print tolower($1)}')
[ -n "$table" ] || table=data/costs/cpu-${vendor:-unknown}-${threads}t.h5
mkdir -p "$out/raw" "$(dirname "$table")"
log() { echo "[cpu.sh $(date +%H:%M:%S)] $*" >&2; }
safe() { echo "$1" | tr ':/' '__'; }
# A model is a bundled one's name or a file: an imported ONNX model (e.g. one that
# scripts/bench/onnx_torch.py exported from torchvision) or a graph file.
spec() { case $1 in *.onnx | *.json) echo "$1" ;; *) echo "builtin:$1" ;; esac; }
# An imported model's convolutions carry their bias, and its matmul-and-bias pairs are linear
# layers: conv-bias-3.h5's, conv-activations-3.h5's and linear-3.h5's rules are the ones about them.
rules_for() {
  case $1 in
    *.onnx) echo "$rules,data/rules/conv-bias-3.h5,data/rules/conv-activations-3.h5,data/rules/linear-3.h5" ;;
    *) echo "$rules" ;;
  esac
}

# ---------------------------------------------------------------- measure, optimize, measure, optimize
inputs=()
for m in $models; do inputs+=("$(spec "$m")"); done
log "measuring the input graphs' operators into $table ($threads threads)"
"$superopt" measure "${inputs[@]}" --device cpu --threads "$threads" --out "$table" --repeat 30 >"$out/raw/measure-inputs.txt"
for m in $models; do
  s=$(safe "$m")
  log "$m: optimize with cpu:$threads@$table (the table, and signatures it lacks measured on the fly)"
  "$superopt" optimize "$(spec "$m")" --rules "$(rules_for "$m")" --cost "cpu:$threads@$table" --time-limit "$time_limit" \
    --out "$out/raw/$s.opt.json" --json >"$out/raw/$s.optimize.json" 2>"$out/raw/$s.optimize.err"
  "$superopt" measure "$out/raw/$s.opt.json" --device cpu --threads "$threads" --out "$table" --repeat 30 \
    >>"$out/raw/measure-optimized.txt"
  log "$m: optimize with analytic:h100 (for the rules it picks)"
  "$superopt" optimize "$(spec "$m")" --rules "$(rules_for "$m")" --cost analytic:h100 --time-limit "$time_limit" \
    --json >"$out/raw/$s.h100.json" 2>/dev/null
  sum_of() { "$superopt" graph check "$1" --cost "table:$table" --json 2>/dev/null |
    "$python" -c "import json,sys; print(json.load(sys.stdin)['totals']['cost_ms'])"; }
  printf '{"input_sum_ms": %s, "optimized_sum_ms": %s}\n' "$(sum_of "$(spec "$m")")" "$(sum_of "$out/raw/$s.opt.json")" \
    >"$out/raw/$s.sums.json"
done

# ---------------------------------------------------------------- interleaved timing
for round in $(seq 1 "$rounds"); do
  for m in $models; do
    s=$(safe "$m")
    log "round $round/$rounds: $m"
    "$superopt" run "$(spec "$m")" --device cpu --threads "$threads" --repeat "$repeat" --warmup 2 --json \
      >"$out/raw/$s.ours-input.$round.json"
    "$superopt" run "$out/raw/$s.opt.json" --device cpu --threads "$threads" --repeat "$repeat" --warmup 2 --json \
      >"$out/raw/$s.ours-optimized.$round.json"
    for mode in eager script; do
      # OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (set on some machines for old OpenBLAS builds) unset for
      # PyTorch alone: they make a current OpenBLAS pick slower kernels (torch_blas.py).
      env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$python" scripts/bench/torch_models.py "$(spec "$m")" --device cpu --mode "$mode" --threads "$threads" \
        --repeat "$repeat" --warmup 2 --json >"$out/raw/$s.torch-$mode.$round.json"
    done
  done
done

machine="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
"$python" "$here/cpu_table.py" --raw "$out/raw" --models "$models" --rounds "$rounds" --threads "$threads" \
  --machine "$machine" --table "$table" --out "$out"
