#!/usr/bin/env bash
# TASO Figure 12 on this CPU: end-to-end time of a model under four strategies,
# relative to the input run with oneDNN's own layouts. The layout choice here is
# the one that TASO's figure turns on (§7.5: BERT's 64x1024 by 1024x4096 matmul,
# 1.5x faster transposed in cuBLAS): the layout of each matmul's weight, row-major
# as oneDNN picks it or transposed, timed per signature (runtime/exec/cpu/
# cpu_matmul_layout.h; SUPEROPT_WEIGHT_LAYOUT=onednn turns the choice off).
#   substitutions only  optimize with costs measured in oneDNN's layouts, run so
#   layouts only        the input, run with each matmul's fastest weight layout
#   sequential          the substitutions-only graph, then the fastest layouts
#   joint               optimize with costs measured in the fastest layouts, run so
# The searches use --cost cpu:1 (every cost measured here, in the layouts of its
# strategy) and keep a graph only if it runs faster end to end; the timing is
# interleaved: each round runs every configuration once (--repeat runs), a cell
# is the median of the round medians. One thread.
# --quick: bert, 10 s searches, 2 rounds of 3 runs (each run of bert starts a
# process that takes ~4 s beside its 5 x 30 ms of timing; a 3rd round cost a
# CTest run 20 s). Writes layout.csv, layout.png.
#   scripts/reproduce/layout.sh [--quick] [--out DIR] [--superopt BIN] [--rules FILE]
#       [--allow-unverified] [--models "bert nasrnn"] [--time-limit S]
usage="usage: $0 [--quick] [--out DIR] [--superopt BIN] [--rules FILE] [--allow-unverified] [--models \"A B\"] [--time-limit S]"
accepts="--models --time-limit"
source "$(dirname "$0")/common.sh"

if [ "$quick" = 1 ]; then
  : "${models:=bert}" "${time_limit:=10}"
  rounds=2 repeat=3
  [ -z "$rules" ] && unverified=--allow-unverified
else
  : "${models:=bert nasrnn sru}" "${time_limit:=60}"
  rounds=7 repeat=10
fi
db=$(rules_for 3)

# optimize MODEL LAYOUT OUT: the model optimized with costs measured in LAYOUT.
optimize() {
  SUPEROPT_WEIGHT_LAYOUT=$2 "$superopt" optimize "builtin:$1" --rules "$db" $unverified \
    --cost cpu:1 --time-limit "$time_limit" --out "$3" --json >"$3.result" 2>"$3.log" ||
    { echo "$0: optimize $1 with $2 layouts failed:" >&2; tail -3 "$3.log" >&2; exit 1; }
}
# median_ms GRAPH LAYOUT: one run's median, in ms.
median_ms() {
  SUPEROPT_WEIGHT_LAYOUT=$2 "$superopt" run "$1" --device cpu --threads 1 --repeat "$repeat" --warmup 2 --json \
    2>/dev/null | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["median_ms"])'
}

csv=$out/layout.csv
echo "model,strategy,graph,layouts,ms,speedup,rounds" >"$csv"
for model in $models; do
  tag=$(echo "$model" | tr ':' '_')
  subst=$work/$tag-subst.json joint=$work/$tag-joint.json
  optimize "$model" onednn "$subst"
  optimize "$model" fastest "$joint"
  # strategy graph layouts, the input with oneDNN's layouts first (the baseline).
  configs=("input builtin:$model onednn" "substitutions_only $subst onednn" "layouts_only builtin:$model fastest"
    "sequential $subst fastest" "joint $joint fastest")
  times=$work/$tag-times.txt
  : >"$times"
  for ((r = 0; r < rounds; r++)); do
    for c in "${configs[@]}"; do
      set -- $c
      echo "$1 $(median_ms "$2" "$3")" >>"$times"
    done
  done
  /usr/bin/python3 - "$times" "$model" "$rounds" "$subst" "$joint" >>"$csv" <<'PY'
import statistics, sys
path, model, rounds, subst, joint = sys.argv[1:]
cells = {}
for line in open(path):
    strategy, ms = line.split()
    cells.setdefault(strategy, []).append(float(ms))
base = statistics.median(cells["input"])
graph = {"input": "input", "substitutions_only": "subst", "layouts_only": "input", "sequential": "subst",
         "joint": "joint"}
layouts = {"input": "onednn", "substitutions_only": "onednn", "layouts_only": "fastest", "sequential": "fastest",
           "joint": "fastest"}
for strategy, values in cells.items():
    ms = statistics.median(values)
    print(f"{model},{strategy},{graph[strategy]},{layouts[strategy]},{ms:.3f},{base / ms:.3f},{rounds}")
PY
done

echo "TASO Figure 12 on this CPU; machine: $machine, 1 thread; rules: 3 operators, $(rules_kind); searches: --cost cpu:1, time limit $time_limit s; $rounds interleaved rounds of $repeat runs"
/usr/bin/python3 "$root/scripts/reproduce/layout_plot.py" "$csv" "$out/layout.png"
echo "wrote $csv and $out/layout.png"
