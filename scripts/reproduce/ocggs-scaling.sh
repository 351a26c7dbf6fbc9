#!/usr/bin/env bash
# OCGGS Figures 4-5 (Fang et al., VLDB 2020): optimized cost, search time and
# peak memory of Pruning, DPP, MF, TS and Sampling as the model grows
# (Figure 4: resnet_blocks:N and inceptione_blocks:N, N = 2, 4, 6, 8, K = 10)
# and as the length K grows (Figure 5: K = 5, 10, 15, 20, 25 on resnet_blocks:8
# and inceptione_blocks:8), 3-operator rules, analytic:h100 costs, a time
# limit per cell. An exact search that did not finish reports no cost.
# --quick: N = 2, 4 and K = 5, 10 on the ResNet blocks only, 3 s a cell.
# Writes ocggs-scaling.csv and .png into --out and prints the table.
#   scripts/reproduce/ocggs-scaling.sh [--quick] [--out DIR] [--superopt BIN] [--rules FILE]
#       [--allow-unverified] [--models "A B"] [--sizes "2 4"] [--time-limit S]
usage="usage: $0 [--quick] [--out DIR] [--superopt BIN] [--rules FILE] [--allow-unverified] [--models \"A B\"] [--sizes \"2 4\"] [--time-limit S]"
accepts="--models --sizes --time-limit"
source "$(dirname "$0")/common.sh"

if [ "$quick" = 1 ]; then
  : "${models:=resnet_blocks}" "${sizes:=2 4}" "${time_limit:=3}"
  lengths="5 10"
else
  : "${models:=resnet_blocks inceptione_blocks}" "${sizes:=2 4 6 8}" "${time_limit:=600}"
  lengths="5 10 15 20 25"
fi
db=$(rules_for 3)
searches="Pruning:--search=pruning DPP:--search=dpp MF:--split-threshold=30 TS:--split-threshold=0 Sampling:--search=sampling"
fields="cost_after search_seconds graphs_explored peak_memory_mb finished check"
csv=$out/ocggs-scaling.csv
echo "figure,model,blocks,max_length,search,cost_ms,search_s,explored,peak_mb,finished,check" >"$csv"
# Figure 5's cell at K = 10 on the largest model is Figure 4's last cell (the
# same command): that search runs once and its result stands in both rows.
run() {  # figure family blocks K
  local base=$work/$2-$3-$4
  for entry in $searches; do
    name=${entry%%:*}
    flag=${entry#*:}
    [ -s "$base-$name.json" ] ||
      "$superopt" optimize "builtin:$2:$3" --rules "$db" $unverified ${flag/=/ } --max-length "$4" --alpha 1.05 \
      --budget 1000000000 --time-limit "$time_limit" --json >"$base-$name.json" 2>"$base-$name.err" ||
      echo "$0: $2:$3 K=$4 $name failed: $(tail -n 2 "$base-$name.err" | tr '\n' ' ')" >&2
    echo "$1,$2,$3,$4,$name,$(/usr/bin/python3 "$plot" fields "$base-$name.json" $fields)" >>"$csv"
  done
}
largest=${sizes##* }
for model in $models; do
  for n in $sizes; do run 4 "$model" "$n" 10; done
  for k in $lengths; do run 5 "$model" "$largest" "$k"; done
done

echo "OCGGS Figures 4-5 reproduction; machine: $machine; rules: 3 operators, $(rules_kind); Q 20, eta 1, alpha 1.05; time limit $time_limit s a cell; analytic:h100"
/usr/bin/python3 "$root/scripts/reproduce/ocggs_plot.py" scaling "$csv" "$out/ocggs-scaling.png"
echo "wrote $csv and $out/ocggs-scaling.png"
