#!/usr/bin/env bash
# Issue 33's one prepared GPU run. On the GPU machine, from the repository root, with the bundle
# scripts/bench/gpu-bundle.sh made here carried as .device-bundle/:
#   bash .device-bundle/run-gpu.sh                      (device call: timeout_s 560, carry [".device-bundle"])
# Here and in CI, the same steps on the CPU (our runtime with --device cpu, PyTorch on the CPU):
#   bash scripts/bench/run-gpu.sh --cpu [--quick]       (or .device-bundle/run-gpu.sh --cpu: the bundle's binary)
# Options: --models "A B" (default the 14 bundled models), --budget S (default 480 on a GPU, 1500
# with --cpu, 180 with --quick), --rounds R, --repeat N, --warmup N, --time-limit S (optimize),
# --rules FILE (default data/rules/taso-3.h5), --skip-tests, --out DIR (default $OUT, else ./gpu-out).
# --quick: squeezenet nasrnn sru, 2 rounds of 3 runs, optimize 10 s.
#
# Steps, each model its own command with its own timeout and a failure recorded, not fatal:
#   1. export each model (graph JSON, ONNX);
#   2. measure: `superopt measure` of each model into the cost table DEVICE.h5 (alone on the machine);
#   3. at once: the GPU test binaries; `run --check` of every model (each kernel and the whole graph
#      against the CPU reference); `optimize --cost table:DEVICE.h5`; PyTorch and onnxruntime
#      preparing their models (and torch.compile filling its cache in two helper processes);
#   4. measure the optimized graphs' new signatures, sum each graph's measured operator costs;
#   5. interleaved rounds (scripts/bench/e2e_bench.py): ours on input and optimized graph, PyTorch
#      eager, torch.compile, onnxruntime; a cell is the median of the round medians;
#   6. the table, results.csv, the figure, logs.
# Everything stops by the budget (minus 25 s to write the outputs), so the outputs exist even when
# steps are cut short; $OUT gets at most 6 files: summary.txt (machine, tests, checks, table,
# targets, failures), results.csv (one row per model), DEVICE.h5 (commit as data/costs/DEVICE.h5),
# end-to-end.png, failures.txt (each failed step and its log's tail; absent when none failed),
# logs.tar.gz (every log, JSON and graph). Exit 0 when every step passed, 1 when any failed, 2 on
# bad use or no GPU (without --cpu).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(pwd)
[ -f "$repo/data/rules/taso-3.h5" ] || [ -d "$repo/scripts/bench" ] ||
  { echo "run-gpu.sh: run it from the repository root" >&2; exit 2; }
t_start=$(date +%s)

all_models="resnet50 resnext50 nasnet_a nasrnn bert inception_v3 squeezenet resnet34 sru alexnet vgg16 resnet18 resnet_blocks:4 inceptione_blocks:4"
cpu=0 quick=0 skip_tests=0
models= budget= rounds= repeat= warmup= time_limit= rules= out=
usage="usage: $0 [--cpu] [--quick] [--models \"A B\"] [--budget S] [--rounds R] [--repeat N] [--warmup N] [--time-limit S] [--rules FILE] [--skip-tests] [--out DIR]"
while [ $# -gt 0 ]; do
  case $1 in
    --cpu) cpu=1; shift ;;
    --quick) quick=1; shift ;;
    --skip-tests) skip_tests=1; shift ;;
    --models) models=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --time-limit) time_limit=$2; shift 2 ;;
    --rules) rules=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [ $quick = 1 ]; then
  : "${models:=squeezenet nasrnn sru}" "${budget:=180}" "${rounds:=2}" "${repeat:=3}" "${warmup:=1}" "${time_limit:=10}"
elif [ $cpu = 1 ]; then
  : "${budget:=1500}" "${rounds:=2}" "${repeat:=3}" "${warmup:=1}" "${time_limit:=30}"
else
  : "${budget:=480}" "${rounds:=5}" "${repeat:=50}" "${warmup:=10}" "${time_limit:=30}"
fi
: "${models:=$all_models}" "${rules:=data/rules/taso-3.h5}"
out=${out:-${OUT:-$repo/gpu-out}}
mkdir -p "$out"
deadline=$((t_start + budget - 25))  # the last 25 s write the outputs
left() { echo $((deadline - $(date +%s))); }
until_frac() { echo $((t_start + budget * $1 / 100)); }  # a phase's end, as a share of the budget

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT  # what matters is in $OUT by then
raw=$work/raw logs=$work/logs
mkdir -p "$raw" "$logs" "$work/costs" "$work/bin"
steps=$work/steps.tsv
: >"$steps"
summary=$out/summary.txt
log() { echo "[run-gpu $(date -u +%H:%M:%S) +$(($(date +%s) - t_start))s] $*" >&2; }
safe() { echo "$1" | tr ':/' '__'; }

# ---------------------------------------------------------------- tools
if [ -f "$here/bundle.tar.gz" ]; then
  tar -xzf "$here/bundle.tar.gz" -C "$work" || { echo "run-gpu.sh: cannot unpack $here/bundle.tar.gz" >&2; exit 2; }
  binary=$work/bundle/bin/superopt
  tests_dir=$work/bundle/bin
  origin="bundle $here/bundle.tar.gz"
else
  binary=${SUPEROPT:-$repo/build/superopt}
  tests_dir=$(dirname "$binary")/tests
  [ -d "$tests_dir" ] || tests_dir=$repo/build/tests
  origin="$binary (no bundle beside this script)"
fi
[ -x "$binary" ] || { echo "run-gpu.sh: no superopt binary at $binary" >&2; exit 2; }
# The Python with PyTorch (the GPU machines' python3; Debian's /usr/bin/python3 here).
python=
for py in ${PYTHON:-} python3 /usr/bin/python3; do
  command -v "$py" >/dev/null && "$py" -c "import torch" 2>/dev/null && { python=$(command -v "$py"); break; }
done
# The bundled libraries only for our binaries (a wrapper), never for Python: Debian's libstdc++,
# libssl or libz ahead of the GPU machine's own could break PyTorch or onnxruntime there.
libpath=
if [ -f "$work/bundle/env.sh" ]; then
  nv=$([ -n "$python" ] && "$python" -c 'import glob, os, nvidia
print(":".join(d for p in nvidia.__path__ for d in sorted(glob.glob(os.path.join(p, "*", "lib")))))' 2>/dev/null)
  [ -n "$nv" ] || nv=$(timeout 30 find / -xdev -type d -path '*site-packages/nvidia/*/lib' 2>/dev/null | tr '\n' ':')
  nv=${nv%:}
  libpath=$work/bundle/lib${nv:+:$nv}
fi
wrap() {  # wrap NAME BINARY: $work/bin/NAME runs BINARY with the bundle's libraries
  printf '#!/bin/sh\n%sexec "%s" "$@"\n' "${libpath:+LD_LIBRARY_PATH="$libpath\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" }" "$2" >"$work/bin/$1"
  chmod +x "$work/bin/$1"
}
wrap superopt "$binary"
superopt=$work/bin/superopt
export SUPEROPT=$superopt SUPEROPT_DATA_DIR=$repo/data  # the binary's built-in data path is the build machine's

if [ $cpu = 1 ]; then
  device=cpu threads=$(nproc)
  vendor=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | awk '{print tolower($1)}' | tr -cd 'a-z0-9')
  table_name=cpu-${vendor:-unknown}-${threads}t
  dev_flags=(--device cpu --threads "$threads")
  k=$(( $(nproc) / 4 )); [ "$k" -ge 1 ] || k=1
else
  device=cuda threads=
  if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "run-gpu.sh: needs a CUDA GPU (nvidia-smi finds none); --cpu rehearses the same steps on the CPU" >&2
    exit 2
  fi
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  table_name=$(echo "${gpu_name#NVIDIA }" | awk '{print tolower($1)}' | tr -cd 'a-z0-9')
  : "${table_name:=gpu}"
  dev_flags=(--device cuda)
  k=$(( $(nproc) / 4 )); [ "$k" -ge 1 ] || k=1; [ "$k" -le 4 ] || k=4
fi
table=$work/costs/$table_name.h5

# One step: run_step NAME MODEL LIMIT STDOUT_FILE CMD...; stdout to STDOUT_FILE ("-": the log),
# stderr to the log; a line in steps.tsv either way. The limit is cut to what the budget has left.
run_step() {
  local name=$1 model=$2 limit=$3 stdout=$4; shift 4
  local lg=$logs/$name${model:+.$(safe "$model")}.txt t0 rc note=
  local rest; rest=$(left)
  [ "$limit" -gt "$rest" ] && limit=$rest
  if [ "$limit" -lt 2 ]; then
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "${model:--}" skipped 0 "out of time" >>"$steps"
    return 1
  fi
  [ "$stdout" = - ] && stdout=$lg
  t0=$(date +%s)
  if [ "$stdout" = "$lg" ]; then
    timeout -k 5 "$limit" "$@" >"$lg" 2>&1; rc=$?
  else
    timeout -k 5 "$limit" "$@" >"$stdout" 2>"$lg"; rc=$?
  fi
  { [ $rc = 124 ] || [ $rc = 137 ]; } && note="timed out after ${limit} s"
  [ $rc = 77 ] && note=$(tail -1 "$lg")
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "${model:--}" "$rc" "$(($(date +%s) - t0))" "${note:-${lg#$work/}}" >>"$steps"
  return $rc
}
# pool K FUNCTION ARG...: FUNCTION ARG, K at a time
pool() {
  local n=$1 f=$2; shift 2
  for a in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$n" ]; do wait -n 2>/dev/null || true; done
    "$f" "$a" &
  done
  wait
}

# ---------------------------------------------------------------- 0. the machine
{
  echo "== run-gpu.sh $([ $cpu = 1 ] && echo "--cpu ")$([ $quick = 1 ] && echo "--quick ")on ${HOSTNAME:-?}, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "binary: $origin; rules: $rules; models: $models"
  echo "budget ${budget} s; rounds $rounds x $repeat runs (warm-up $warmup); optimize --time-limit $time_limit; $k at a time per step kind"
  if [ $cpu = 0 ]; then nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; fi
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  "$superopt" version 2>&1 | head -12
  if [ -n "$python" ]; then
    "$python" -c 'import torch; print("python", __import__("sys").version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None, "torch.compile", hasattr(torch, "compile"))' 2>&1
    "$python" -c 'import onnxruntime as o; print("onnxruntime", o.__version__, o.get_available_providers())' 2>/dev/null ||
      echo "onnxruntime: not installed"
  else
    echo "PyTorch: not installed (no python3 imports torch): the PyTorch and onnxruntime columns stay empty"
  fi
} >"$summary" 2>&1
cat "$summary" >&2

# ---------------------------------------------------------------- 1. export
export_one() {
  local m=$1 s; s=$(safe "$1")
  run_step export "$m" 60 - "$superopt" graph export "builtin:$m" --out "$raw/$s.json" &&
    run_step export-onnx "$m" 60 - "$superopt" graph export "$raw/$s.json" --out "$raw/$s.onnx"
}
log "1. export"
# shellcheck disable=SC2086
pool 4 export_one $models

# ---------------------------------------------------------------- 2. measure the input graphs (alone)
log "2. measure into $table_name.h5"
[ -f "data/costs/$table_name.h5" ] && cp "data/costs/$table_name.h5" "$table"  # measure adds only what it lacks
measure_reps=(); [ $cpu = 1 ] && measure_reps=(--repeat 10 --warmup 2)
measure_deadline=$(until_frac 28)
for m in $models; do
  s=$(safe "$m")
  [ -f "$raw/$s.json" ] || continue
  lim=$((measure_deadline - $(date +%s))); [ $cpu = 1 ] || { [ $lim -le 60 ] || lim=60; }
  run_step measure "$m" "$lim" - "$superopt" measure "$raw/$s.json" "${dev_flags[@]}" --out "$table" "${measure_reps[@]}"
  if grep -q "holds costs of\|was measured with\|cost table, this device" "$logs/measure.$s.txt" 2>/dev/null; then
    rm -f "$table"  # the committed table is another device's: start afresh
    run_step measure "$m" "$lim" - "$superopt" measure "$raw/$s.json" "${dev_flags[@]}" --out "$table" "${measure_reps[@]}"
  fi
done

# ---------------------------------------------------------------- 3. tests, checks, optimize, PyTorch at once
log "3. GPU tests, run --check, optimize, PyTorch preparing (at once)"
phase3_deadline=$(until_frac 60)
phase_left() { local l=$((phase3_deadline - $(date +%s))); echo $((l > 1 ? l : 1)); }
go=$work/go
warm_pids=()
driver_pid=
export TORCHINDUCTOR_CACHE_DIR=$work/inductor-cache  # the driver and the two compile helpers share it
if [ -n "$python" ]; then
  systems="ours_input ours_optimized torch_eager torch_compile ort"
  driver_args=(--models "$models" --raw "$raw" --results "$raw/e2e.jsonl" --superopt "$superopt" --device "$device"
               --rounds "$rounds" --repeat "$repeat" --warmup "$warmup" --go "$go" --deadline "$deadline"
               --compile-timeout $([ $cpu = 1 ] && echo 300 || echo 90) --cell-timeout $([ $cpu = 1 ] && echo 300 || echo 60))
  [ -n "$threads" ] && driver_args+=(--threads "$threads")
  "$python" "$repo/scripts/bench/e2e_bench.py" "${driver_args[@]}" >"$logs/e2e_bench.txt" 2>&1 &
  driver_pid=$!
  # torch.compile is slow the first time: two helpers compile the models (halves each) into the
  # inductor cache while the CPU-bound steps run; the driver's own compile then hits the cache.

  if [ $cpu = 0 ] && "$python" -c "import torch, sys; sys.exit(0 if hasattr(torch, 'compile') else 1)" 2>/dev/null; then
    set -- $models; i=0; first= second=
    for m in "$@"; do if [ $((i % 2)) = 0 ]; then first+=" $m"; else second+=" $m"; fi; i=$((i + 1)); done
    for half in "$first" "$second"; do
      setsid "$python" "$repo/scripts/bench/e2e_bench.py" --warm --models "$half" --raw "$raw" --results /dev/null \
        --superopt "$superopt" --device "$device" --deadline "$phase3_deadline" >>"$logs/warm-compile.txt" 2>&1 &
      warm_pids+=($!)
    done
  fi
else
  printf '%s\t%s\t%s\t%s\t%s\n' pytorch - skipped 0 "no python3 imports torch" >>"$steps"
fi

tests_job() {
  [ $skip_tests = 1 ] && return 0
  for t in cuda_device_test gpu_kernels_test gpu_runtime_test; do
    [ -x "$tests_dir/$t" ] || { printf '%s\t%s\t%s\t%s\t%s\n' "test" "$t" missing 0 "not in $tests_dir" >>"$steps"; continue; }
    wrap "$t" "$tests_dir/$t"
    lim=$(phase_left); [ "$lim" -le 150 ] || lim=150
    run_step test "$t" "$lim" - "$work/bin/$t"
  done
}
check_one() {
  local m=$1 s; s=$(safe "$1")
  [ -f "$raw/$s.json" ] || return 0
  local flags=("${dev_flags[@]}"); [ $cpu = 1 ] && flags=(--device cpu --threads 1)
  local lim; lim=$(phase_left); [ "$lim" -le 300 ] || lim=300
  # exit 1 with its JSON when the check fails; the table shows it
  run_step check "$m" "$lim" "$raw/$s.check.json" "$superopt" run "$raw/$s.json" "${flags[@]}" --repeat 1 --warmup 0 --check --json
}
optimize_one() {
  local m=$1 s; s=$(safe "$1")
  [ -f "$raw/$s.json" ] || return 0
  local cost=table:$table; [ -f "$table" ] || cost=analytic:h100
  local lim; lim=$(phase_left); [ "$lim" -le $((time_limit + 90)) ] || lim=$((time_limit + 90))
  run_step optimize "$m" "$lim" "$raw/$s.optimize.json" "$superopt" optimize "$raw/$s.json" --rules "$rules" \
    --cost "$cost" --time-limit "$time_limit" --out "$raw/$s.opt.json" --json
}
# shellcheck disable=SC2086
tests_job & p1=$!
pool "$k" check_one $models & p2=$!
pool "$k" optimize_one $models & p3=$!
wait $p1 $p2 $p3  # not the PyTorch driver, which waits for step 5

# ---------------------------------------------------------------- 4. measure the optimized graphs, operator sums
log "4. measure the optimized graphs, sum the measured operator costs"
opt_graphs=(); for m in $models; do [ -f "$raw/$(safe "$m").opt.json" ] && opt_graphs+=("$raw/$(safe "$m").opt.json"); done
[ ${#opt_graphs[@]} -gt 0 ] && [ -f "$table" ] &&
  run_step measure-optimized "" $((cpu == 1 ? 600 : 60)) - "$superopt" measure "${opt_graphs[@]}" "${dev_flags[@]}" --out "$table" "${measure_reps[@]}"
for m in $models; do
  s=$(safe "$m")
  for g in "$s" "$s.opt"; do
    [ -f "$raw/$g.json" ] && [ -f "$table" ] &&
      run_step cost "$g" 30 "$raw/$g.cost.json" "$superopt" graph check "$raw/$g.json" --cost "table:$table" --json
  done
done

# ---------------------------------------------------------------- 5. interleaved rounds
# No compiling while timing: each helper is a process group (setsid), its compile workers with it.
for p in "${warm_pids[@]:-}"; do [ -n "$p" ] && kill -- "-$p" 2>/dev/null; done
touch "$go"
if [ -n "$driver_pid" ]; then
  log "5. interleaved rounds until +$((deadline - t_start)) s"
  # A driver stuck past the deadline (a hung CUDA call) is stopped, so the outputs still get written.
  ( while [ "$(date +%s)" -lt $((deadline + 10)) ]; do sleep 1; done; kill -TERM "$driver_pid" 2>/dev/null; sleep 5
    kill -KILL "$driver_pid" 2>/dev/null ) </dev/null >/dev/null 2>&1 &  # holds no pipe of ours open
  watchdog=$!
  wait "$driver_pid"; rc=$?
  kill "$watchdog" 2>/dev/null
  # A crash (or a kill) loses only the cell it was in: run again, skipping that one.
  tries=0
  while [ $rc != 0 ] && [ "$(left)" -gt 30 ] && [ $tries -lt 2 ]; do
    tries=$((tries + 1))
    printf '%s\t%s\t%s\t%s\t%s\n' e2e_bench - "$rc" 0 "died; resumed (try $tries)" >>"$steps"
    timeout -k 5 "$(left)" "$python" "$repo/scripts/bench/e2e_bench.py" "${driver_args[@]}" --resume >>"$logs/e2e_bench.txt" 2>&1
    rc=$?
  done
  printf '%s\t%s\t%s\t%s\t%s\n' e2e_bench - "$rc" $(($(date +%s) - t_start)) "logs/e2e_bench.txt" >>"$steps"
else
  # Without PyTorch: ours alone, one process per cell.
  for m in $models; do
    s=$(safe "$m")
    for g in "$s" "$s.opt"; do
      [ -f "$raw/$g.json" ] && run_step time "$g" 120 "$raw/$g.run.json" "$superopt" run "$raw/$g.json" "${dev_flags[@]}" \
        --repeat "$repeat" --warmup "$warmup" --json
    done
  done
fi

# ---------------------------------------------------------------- 6. outputs
log "6. outputs"
table_py=${python:-$(command -v python3 || echo /usr/bin/python3)}
{
  echo
  echo "== steps (name, model, exit, seconds, log or note): failures"
  awk -F'\t' '$3 != "0" && $3 != "77"' "$steps"
  echo "== steps: $(awk -F'\t' '$3 == "0"' "$steps" | wc -l) passed, $(awk -F'\t' '$3 == "77"' "$steps" | wc -l) skipped (77), $(awk -F'\t' '$3 != "0" && $3 != "77"' "$steps" | wc -l) failed"
  echo "== tests"
  awk -F'\t' '$1 == "test"' "$steps"
  for t in "$logs"/test.*.txt; do [ -f "$t" ] && echo "$(basename "$t" .txt): $(grep -E 'test cases|All tests passed|skipped' "$t" | tail -1)"; done
  echo
  "$table_py" "$repo/scripts/bench/e2e_table.py" --raw "$raw" --steps "$steps" --models "$models" \
    --device "$device" --table "$table_name.h5" --csv "$out/results.csv" 2>&1
} >>"$summary"
[ -f "$table" ] && cp "$table" "$out/$table_name.h5"
if [ -f "$out/results.csv" ]; then
  for py in "$table_py" /usr/bin/python3; do
    "$py" -c "import matplotlib" 2>/dev/null &&
      { "$py" "$repo/scripts/reproduce/end_to_end_plot.py" "$out/results.csv" "$out/end-to-end.png" >"$logs/plot.txt" 2>&1; break; }
  done
  [ -f "$out/end-to-end.png" ] || echo "(no end-to-end.png: no Python with matplotlib; scripts/reproduce/end-to-end.sh --plot-only results.csv draws it)" >>"$summary"
fi
failed=$(awk -F'\t' '$3 != "0" && $3 != "77"' "$steps" | wc -l)
if [ "$failed" -gt 0 ]; then
  awk -F'\t' '$3 != "0" && $3 != "77" {print $1 "\t" $2 "\t" $3 "\t" $5}' "$steps" | while IFS=$'\t' read -r name model rc note; do
    echo "== $name $model: exit $rc ($note)"
    lg=$logs/$name.$(safe "$model").txt; [ "$model" = - ] && lg=$logs/$name.txt
    [ -f "$lg" ] && tail -n 25 "$lg"
  done >"$out/failures.txt"
fi
tar -czf "$out/logs.tar.gz" -C "$work" logs raw steps.tsv 2>/dev/null
echo "== $(($(date +%s) - t_start)) s in all; outputs in $out: $(ls "$out" | tr '\n' ' ')" >>"$summary"
cat "$summary"
[ "$failed" = 0 ]
