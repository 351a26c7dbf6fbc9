#!/usr/bin/env bash
# OCGGS Table 3 (Fang et al., VLDB 2020): optimized cost, search time and peak
# memory of ENU (superopt optimize --search exhaustive: every sequence of
# length <= K), Pruning, DPP, MF (backtracking, split threshold 30), TS
# (backtracking without the split) and Sampling (Q 20, eta 1), K = 10, alpha
# 1.05, on Inception-v3, ResNet (the 8-block model), ResNeXt-50, NasNet-A,
# BERT, SRU and NasRNN, with 3-operator rules (data/rules/taso-3.h5) and
# analytic:h100 costs, a time limit per cell (no budget), beside the paper's
# numbers (P100, TASO's 157 rules, 1 h limit). An exact search (ENU, Pruning,
# DPP) that did not finish reports no cost, as in the paper.
# --quick: SRU and resnet_blocks:2, 4 s a cell.
# Writes ocggs-table3.csv and .png into --out and prints the table.
#   scripts/reproduce/ocggs-table3.sh [--quick] [--out DIR] [--superopt BIN] [--rules FILE]
#       [--allow-unverified] [--models "A B"] [--time-limit S]
usage="usage: $0 [--quick] [--out DIR] [--superopt BIN] [--rules FILE] [--allow-unverified] [--models \"A B\"] [--time-limit S]"
accepts="--models --time-limit"
source "$(dirname "$0")/common.sh"

if [ "$quick" = 1 ]; then
  : "${models:=sru resnet_blocks:2}" "${time_limit:=4}"
else
  : "${models:=inception_v3 resnet_blocks:8 resnext50 nasnet_a bert sru nasrnn}" "${time_limit:=600}"
fi
db=$(rules_for 3)
searches="ENU:--search=exhaustive Pruning:--search=pruning DPP:--search=dpp MF:--split-threshold=30 TS:--split-threshold=0 Sampling:--search=sampling"
fields="cost_after search_seconds graphs_explored peak_memory_mb finished check"
csv=$out/ocggs-table3.csv
echo "model,operators,search,cost_before_ms,cost_ms,search_s,explored,peak_mb,finished,check" >"$csv"
for model in $models; do
  base=$work/$(echo "$model" | tr ':' '_')
  for entry in $searches; do
    name=${entry%%:*}
    flag=${entry#*:}
    "$superopt" optimize "builtin:$model" --rules "$db" $unverified ${flag/=/ } --max-length 10 --alpha 1.05 \
      --budget 1000000000 --time-limit "$time_limit" --json >"$base-$name.json" 2>/dev/null || true
    row=$(/usr/bin/python3 "$plot" fields "$base-$name.json" $fields)
    before=$(/usr/bin/python3 "$plot" fields "$base-$name.json" operators cost_before)
    echo "$model,${before%%,*},$name,${before#*,},$row" >>"$csv"
  done
done

echo "OCGGS Table 3 reproduction; machine: $machine; rules: 3 operators, $(rules_kind); K 10, Q 20, eta 1, alpha 1.05; time limit $time_limit s a cell; analytic:h100"
/usr/bin/python3 "$root/scripts/reproduce/ocggs_plot.py" table3 "$csv" "$out/ocggs-table3.png"
echo "wrote $csv and $out/ocggs-table3.png"
