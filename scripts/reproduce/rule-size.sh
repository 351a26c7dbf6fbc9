#!/usr/bin/env bash
# TASO Figure 11: the optimized cost of each model (analytic:h100 cost model)
# with rule databases limited to 1, 2, 3 and 4 operators, as relative speedup
# over the input graph. Each database is generated and verified (2 verifier
# workers) unless --allow-unverified; --rules FILE gives the 3-operator one,
# --rules-dir DIR holds proven taso-N.h5 of other sizes (default data/rules,
# where scripts/get-rules.sh brings taso-4.h5 and matmul-2d-5.h5 back first);
# --opset FILE uses that operator set's NAME-N.h5 instead (issue 20's fifth
# bar: --opset data/opsets/matmul-2d.json --sizes "1 2 3 4 5").
# --search S (issue 35: eqsat) searches with S instead of backtracking, and
# --minimal-rules gives each search only its database's minimal set.
# --quick: sizes 1-3, two small models, budget 30 and candidate rules.
# Writes rule-size.csv, rule-size.png and each run's optimize --json
# (rule-size-runs/MODEL-N.json) into --out and prints the table.
#   scripts/reproduce/rule-size.sh [--quick] [--out DIR] [--superopt BIN] [--rules FILE] [--rules-dir DIR]
#       [--opset FILE] [--allow-unverified] [--sizes "1 2 3 4"] [--models "A B"] [--budget N] [--time-limit S]
#       [--search S] [--minimal-rules]
usage="usage: $0 [--quick] [--out DIR] [--superopt BIN] [--rules FILE] [--rules-dir DIR] [--opset FILE] [--allow-unverified] [--sizes \"1 2 3 4\"] [--models \"A B\"] [--budget N] [--time-limit S] [--search S] [--minimal-rules]"
accepts="--models --sizes --budget --time-limit --search"
source "$(dirname "$0")/common.sh"

if [ "$quick" = 1 ]; then
  : "${sizes:=1 2 3}" "${models:=squeezenet nasrnn}" "${budget:=30}" "${time_limit:=20}"
  [ -z "$rules" ] && unverified=--allow-unverified
else
  : "${sizes:=1 2 3 4}" "${models:=resnet50 resnext50 nasnet_a nasrnn bert}" "${budget:=1000}" "${time_limit:=60}"
fi
csv=$out/rule-size.csv
# Each run's `optimize --json` (rules applied, timings) stays beside the CSV.
mkdir -p "$out/rule-size-runs"
echo "model,max_ops,rules,rules_usable,cost_before_ms,cost_after_ms,speedup,search_seconds,check" >"$csv"
for n in $sizes; do
  db=$(rules_for "$n")
  for model in $models; do
    result=$out/rule-size-runs/$(echo "$model-$n" | tr ':' '_').json
    "$superopt" optimize "builtin:$model" --rules "$db" $unverified $minimal ${search:+--search "$search"} \
      --budget "$budget" --time-limit "$time_limit" --json >"$result" 2>/dev/null || true
    echo "$model,$n,$(rules_kind),$(/usr/bin/python3 "$plot" fields "$result" rules_usable cost_before cost_after \
      speedup search_seconds check)" >>"$csv"
  done
done

echo "TASO Figure 11 reproduction; machine: $machine; search ${search:-backtracking}${minimal:+, minimal rules}; budget $budget, time limit $time_limit s, alpha 1.05, split 30, analytic:h100"
/usr/bin/python3 "$plot" rule-size "$csv" "$out/rule-size.png"
largest=$(echo $sizes | tr ' ' '\n' | sort -n | tail -1)
echo "rules of $largest operators the searches applied (net applications):"
/usr/bin/python3 "$plot" largest-rules "$largest" "$out"/rule-size-runs/*-"$largest".json
echo "wrote $csv and $out/rule-size.png"
