#!/usr/bin/env bash
# GPU benchmark (issue 6): for each of TASO's five models, side by side in one run, our runtime's
# latency for the input graph and the optimized graph, the sum of operator costs measured alone
# against the measured end-to-end time, and PyTorch eager and torch.compile on the same device.
#   scripts/bench/gpu.sh [--models "resnet50 resnext50 nasnet_a nasrnn bert"] [--rules FILE]
#                        [--cost table|gpu] [--repeat 100] [--time-limit 30] [--check] [--out DIR] [--cpu]
# Writes DIR/gpu.csv, DIR/gpu.txt (the table), DIR/costs/DEVICE.h5 (measured operator costs; commit
# it as data/costs/DEVICE.h5) and every command's JSON under DIR/raw/. Default DIR: $OUT/gpu when
# $OUT is set (device runs), else scripts/bench/out/gpu. Needs the superopt binary ($SUPEROPT,
# build/superopt or PATH, e.g. from .device-bundle/env.sh) and a Python with PyTorch ($PYTHON or the
# first python3 that imports torch). Without a GPU it exits 2 unless --cpu: then PyTorch runs on
# the CPU, the optimizer uses analytic:h100, and our runtime's columns stay empty (a check of the
# script's plumbing, not a benchmark). Rules: --rules FILE, else data/rules/taso-3.h5, else
# .device-bundle/rules.h5 (scripts/bench/gpu-bundle.sh packs one).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"

models="resnet50 resnext50 nasnet_a nasrnn bert"
rules=
cost=table
repeat=100
time_limit=30
check=
unverified=
out=
cpu=0
usage="usage: $0 [--models \"A B\"] [--rules FILE] [--cost table|gpu] [--repeat N] [--time-limit S] [--check] [--allow-unverified] [--out DIR] [--cpu]"
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=$2; shift 2 ;;
    --rules) rules=$2; shift 2 ;;
    --cost) cost=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --time-limit) time_limit=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) check=--check; shift ;;
    --allow-unverified) unverified=--allow-unverified; shift ;;
    --cpu) cpu=1; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
die() { echo "gpu.sh: $*" >&2; exit 2; }
case $cost in table|gpu) ;; *) die "--cost must be table or gpu, not '$cost'" ;; esac

# ---------------------------------------------------------------- tools
superopt=${SUPEROPT:-}
[ -n "$superopt" ] || { [ -x build/superopt ] && superopt=$repo/build/superopt; } || true
[ -n "$superopt" ] || superopt=$(command -v superopt || true)
[ -n "$superopt" ] && [ -x "$superopt" ] || die "no superopt binary: build it (scripts/build.sh), set \$SUPEROPT, or source .device-bundle/env.sh"
export SUPEROPT=$superopt

python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3 /usr/bin/python3 python; do
    if command -v "$candidate" >/dev/null && "$candidate" -c "import torch" 2>/dev/null; then python=$(command -v "$candidate"); break; fi
  done
fi
[ -n "$python" ] || die "no Python with PyTorch (set \$PYTHON)"

has_command() { "$superopt" "$1" --help >/dev/null 2>&1; }
if [ $cpu = 0 ]; then
  command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || die "needs a CUDA GPU (nvidia-smi finds none); --cpu checks the script on the CPU"
  for c in run measure; do
    has_command $c || die "this superopt ($superopt) has no '$c' command: build one with the CUDA runtime (issue 6)"
  done
  "$python" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" ||
    die "$python: PyTorch sees no CUDA device"
fi

if [ -z "$rules" ]; then
  for candidate in data/rules/taso-3.h5 .device-bundle/rules.h5; do
    [ -f "$candidate" ] && { rules=$candidate; break; }
  done
fi
[ -n "$rules" ] && [ -f "$rules" ] || die "no rule database: give --rules FILE (data/rules/taso-3.h5 is absent)"

out=${out:-${OUT:+$OUT/gpu}}
out=${out:-scripts/bench/out/gpu}
mkdir -p "$out/raw" "$out/costs"
raw=$out/raw

# ---------------------------------------------------------------- the machine
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  if [ $cpu = 0 ]; then
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
  else
    echo "gpu: none (--cpu: PyTorch on the CPU, our runtime not run)"
  fi
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  "$superopt" version 2>/dev/null | grep -E '^(superopt|cuda)' | tr '\n' ';' | sed 's/;$/\n/'
  echo "pytorch: $("$python" -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version())')"
  echo "rules: $rules; repeats: $repeat; FP32 (TF32 off) in both runtimes"
} | tee "$out/machine.txt"

# ---------------------------------------------------------------- costs
step() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
if [ $cpu = 1 ]; then
  cost_spec=analytic:h100
elif [ $cost = gpu ]; then
  cost_spec=gpu
else
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | sed 's/^NVIDIA //' | awk '{print tolower($1)}')
  table=$out/costs/$device.h5
  # Start from the committed table so that measure only adds what is missing.
  [ -f "data/costs/$device.h5" ] && [ ! -f "$table" ] && cp "data/costs/$device.h5" "$table"
  specs=()
  for m in $models; do specs+=("builtin:$m"); done
  step "measuring operator costs of $models into $table"
  if ! "$superopt" measure "${specs[@]}" --out "$table" >"$raw/measure.txt" 2>&1; then
    # The committed table may be another device's (measure refuses to mix them): start afresh.
    grep -q "holds costs of" "$raw/measure.txt" && rm -f "$table" &&
      "$superopt" measure "${specs[@]}" --out "$table" >"$raw/measure.txt" 2>&1 ||
      die "superopt measure failed: $(tail -1 "$raw/measure.txt")"
  fi
  tail -1 "$raw/measure.txt" >&2
  cost_spec=table:$table
fi

# ---------------------------------------------------------------- per model
for m in $models; do
  step "$m: export, optimize with $cost_spec"
  "$superopt" graph export "builtin:$m" --out "$raw/$m.json" >/dev/null
  "$superopt" optimize "$raw/$m.json" --rules "$rules" --cost "$cost_spec" --time-limit "$time_limit" $unverified \
    --out "$raw/$m.opt.json" --json >"$raw/$m.optimize.json" 2>"$raw/$m.optimize.err" ||
    { cat "$raw/$m.optimize.err" >&2; die "$m: superopt optimize failed"; }
  for g in "$m" "$m.opt"; do
    "$superopt" graph check "$raw/$g.json" --cost "$cost_spec" --json >"$raw/$g.cost.json"
    if [ $cpu = 0 ]; then
      step "$g: superopt run --gpu --op-sum $check"
      # A failed --check exits 1 with its JSON; the table shows it, the other models still run.
      "$superopt" run "$raw/$g.json" --gpu --repeat "$repeat" --op-sum $check --json >"$raw/$g.run.json" ||
        grep -q median_ms "$raw/$g.run.json" || die "$g: superopt run --gpu failed (output in $raw/$g.run.json)"
    fi
  done
  step "$m: PyTorch eager and torch.compile"
  device_flag=cuda; [ $cpu = 1 ] && device_flag=cpu
  "$python" "$here/torch_models.py" "$raw/$m.json" --device $device_flag --mode both --repeat "$repeat" \
    --warmup $(( repeat < 10 ? repeat : 10 )) --json >"$raw/$m.torch.json" || die "$m: torch_models.py failed"
done

"$python" "$here/gpu_table.py" --raw "$raw" --models "$models" --csv "$out/gpu.csv" | tee "$out/gpu.txt"
echo "wrote $out/gpu.csv, $out/gpu.txt${table:+, $table}" >&2
