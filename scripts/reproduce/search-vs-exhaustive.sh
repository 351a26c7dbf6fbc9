#!/usr/bin/env bash
# MetaFlow Table 3: backtracking search (alpha 1.05, no budget to speak of)
# against exhaustive search (superopt optimize --exhaustive: no alpha pruning,
# no budget, stopped only by the time limit) on AlexNet, VGG16, an Inception-E
# module and ResNet-18, both with the graph split (threshold 30: only
# ResNet-18 is split), 3-operator rules, analytic:h100 costs. Reports search
# time, graphs explored, whether each search explored all it could
# ("finished"), best cost, and whether both found the same graph (canonical
# hash of the result), beside the paper's times (P100, MetaFlow's rules).
# --quick: AlexNet and the Inception-E module, 5 s for exhaustive search.
# Writes search-vs-exhaustive.csv and .png into --out and prints the table.
#   scripts/reproduce/search-vs-exhaustive.sh [--quick] [--out DIR] [--superopt BIN] [--rules FILE]
#       [--allow-unverified] [--models "A B"] [--time-limit S]
usage="usage: $0 [--quick] [--out DIR] [--superopt BIN] [--rules FILE] [--allow-unverified] [--models \"A B\"] [--time-limit S]"
accepts="--models --time-limit"
source "$(dirname "$0")/common.sh"

if [ "$quick" = 1 ]; then
  : "${models:=alexnet inceptione_blocks:1}" "${time_limit:=5}"
  [ -z "$rules" ] && unverified=--allow-unverified
else
  : "${models:=alexnet vgg16 inceptione_blocks:1 resnet18}" "${time_limit:=600}"
fi
db=$(rules_for 3)
paper() {  # MetaFlow Table 3: exhaustive, backtracking
  case $1 in
    alexnet) echo "5.0 s,0.1 s" ;;
    vgg16) echo "2.3 min,0.2 s" ;;
    inceptione_blocks:1) echo "12.8 min,0.29 s" ;;
    resnet18) echo "3.1 h,0.99 s" ;;
    *) echo "," ;;
  esac
}
fields="search_seconds graphs_explored finished cost_after graph_hash"
csv=$out/search-vs-exhaustive.csv
echo "model,operators,parts,exhaustive_s,exhaustive_explored,exhaustive_finished,exhaustive_cost_ms,exhaustive_hash,backtracking_s,backtracking_explored,backtracking_finished,backtracking_cost_ms,backtracking_hash,same_cost,same_graph,paper_exhaustive,paper_backtracking" >"$csv"
for model in $models; do
  base=$work/$(echo "$model" | tr ':' '_')
  "$superopt" optimize "builtin:$model" --rules "$db" $unverified --exhaustive --time-limit "$time_limit" \
    --json >"$base-exhaustive.json" 2>/dev/null || true
  "$superopt" optimize "builtin:$model" --rules "$db" $unverified --alpha 1.05 --budget 1000000 \
    --time-limit "$time_limit" --json >"$base-backtracking.json" 2>/dev/null || true
  ex=$(/usr/bin/python3 "$plot" fields "$base-exhaustive.json" $fields)
  bt=$(/usr/bin/python3 "$plot" fields "$base-backtracking.json" $fields)
  shape=$(/usr/bin/python3 "$plot" fields "$base-backtracking.json" operators parts)
  same=$(/usr/bin/python3 - "$ex" "$bt" <<'PY'
import sys
ex, bt = (s.split(",") for s in sys.argv[1:])
if "FAILED" in ex + bt:
    print("FAILED,FAILED")
else:
    same_cost = abs(float(ex[3]) - float(bt[3])) <= 1e-9 * max(1.0, float(ex[3]))
    print(f"{'yes' if same_cost else 'no'},{'yes' if ex[4] == bt[4] else 'no'}")
PY
  )
  echo "$model,$shape,$ex,$bt,$same,$(paper "$model")" >>"$csv"
done

echo "MetaFlow Table 3 reproduction; machine: $machine; rules: 3 operators, $(rules_kind); time limit $time_limit s each; split 30; analytic:h100"
/usr/bin/python3 "$plot" search "$csv" "$out/search-vs-exhaustive.png"
echo "wrote $csv and $out/search-vs-exhaustive.png"
