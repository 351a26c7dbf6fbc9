#!/bin/bash
# `optimize --time-limit 5` on a chain of 2,000 16x16 matmuls (issue 17: "a
# 2,000-operator chain took 15.6 s"). Its outputs overflow double on the
# check's random values, so the check cannot tell right from wrong: it used to
# fail, blame matmul associativity as a suspect, re-check every application on
# the whole graph past the limit and search again. Now the check is
# inconclusive, blames nothing, the input graph is the result, and the run
# ends near the limit.
#   overflow_chain_test.sh SUPEROPT RULES
set -u
bin=$1
rules=$2
test_name=overflow_chain_test
. "$(dirname "$0")/temp_work.sh"
cd "$work" || exit 1

/usr/bin/python3 "$(dirname "$0")/make_chain.py" matmul 2000 16 >chain.json || fail "the generator"
# The limit leaves time for the check after loading (the sanitizer build loads
# for longer than 5 s: its factor scales the limit too).
limit=$((5 * time_scale))
SECONDS=0
"$bin" optimize chain.json --rules "$rules" --time-limit $limit --json --out optimized.json >out.json 2>err.txt ||
  fail "exit $?: $(cat err.txt)"
echo "optimize --time-limit $limit on 2,000 matmuls: $SECONDS s"
[ "$SECONDS" -lt $((3 * limit)) ] || fail "took $SECONDS s"
grep -q "^superopt: the numerical check is inconclusive (the model's outputs overflow to inf or NaN on its random values): the input graph is the result, unchanged ([0-9]* applications discarded unchecked)$" err.txt ||
  fail "the line on stderr: $(cat err.txt)"
/usr/bin/python3 -c '
import json
r = json.load(open("out.json"))
assert r["check"]["inconclusive"] and r["check"]["status"] == "not checked" and not r["check"]["passed"], r["check"]
assert r["suspect_rules"] == [] and r["rounds"] == 1, r["suspect_rules"]
assert r["cost_after"] == r["cost_before"] and r["out"] == "optimized.json", r
print("phase seconds:", r["phase_seconds"])
' || fail "the JSON summary: $(head -c 400 out.json)"
[ -s optimized.json ] || fail "nothing written"
echo "overflow_chain_test: ok"
