#!/usr/bin/env bash
# MetaFlow Figure 10: the best cost found and the search time against the
# pruning parameter alpha (1 = greedy) for a few models, 3-operator rules,
# the graph split at 30, analytic:h100 costs, a budget large enough that the
# time limit or an empty queue ends each search.
# --quick: two small models, alpha 1, 1.05, 1.2, 5 s each.
# Writes alpha.csv and alpha.png into --out and prints the table.
#   scripts/reproduce/alpha.sh [--quick] [--out DIR] [--superopt BIN] [--rules FILE]
#       [--allow-unverified] [--models "A B"] [--alphas "1 1.05"] [--budget N] [--time-limit S]
usage="usage: $0 [--quick] [--out DIR] [--superopt BIN] [--rules FILE] [--allow-unverified] [--models \"A B\"] [--alphas \"1 1.05\"] [--budget N] [--time-limit S]"
accepts="--models --alphas --budget --time-limit"
source "$(dirname "$0")/common.sh"

if [ "$quick" = 1 ]; then
  : "${models:=inceptione_blocks:1 squeezenet}" "${alphas:=1 1.05 1.2}" "${budget:=100000}" "${time_limit:=5}"
  [ -z "$rules" ] && unverified=--allow-unverified
else
  : "${models:=inceptione_blocks:1 squeezenet nasrnn bert}" "${alphas:=1 1.01 1.02 1.05 1.1 1.2 1.5}"
  : "${budget:=1000000}" "${time_limit:=120}"
fi
db=$(rules_for 3)
csv=$out/alpha.csv
echo "model,alpha,cost_before_ms,cost_after_ms,speedup,search_seconds,graphs_explored,finished,check" >"$csv"
for model in $models; do
  for a in $alphas; do
    result=$work/$(echo "$model-$a" | tr ':' '_').json
    "$superopt" optimize "builtin:$model" --rules "$db" $unverified --alpha "$a" --budget "$budget" \
      --time-limit "$time_limit" --json >"$result" 2>/dev/null || true
    echo "$model,$a,$(/usr/bin/python3 "$plot" fields "$result" cost_before cost_after speedup search_seconds \
      graphs_explored finished check)" >>"$csv"
  done
done

echo "MetaFlow Figure 10 reproduction; machine: $machine; rules: 3 operators, $(rules_kind); budget $budget, time limit $time_limit s; split 30; analytic:h100"
/usr/bin/python3 "$plot" alpha "$csv" "$out/alpha.png"
echo "wrote $csv and $out/alpha.png"
