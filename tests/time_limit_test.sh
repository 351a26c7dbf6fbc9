#!/bin/bash
# `optimize --time-limit 5` on a 20,000-operator chain ends in well under 15 s
# (it took 277 s: loading, splitting and the seams ignored the limit) and says
# where the time went.
#   time_limit_test.sh SUPEROPT RULES
set -u
bin=$1
rules=$2
test_name=time_limit_test
. "$(dirname "$0")/temp_work.sh"
cd "$work" || exit 1

# x -> matmul(w0) -> relu -> matmul(w2) -> relu ... 20,000 operators.
/usr/bin/python3 "$(dirname "$0")/make_chain.py" matmul,relu 20000 16 >chain.json || fail "the generator"
SECONDS=0
"$bin" optimize chain.json --rules "$rules" --time-limit 5 --json --out optimized.json >out.json 2>err.txt ||
  fail "exit $?: $(cat err.txt)"
echo "optimize --time-limit 5 on 20,000 operators: $SECONDS s"
[ "$SECONDS" -lt $((15 * time_scale)) ] || fail "took $SECONDS s"
/usr/bin/python3 -c '
import json, sys
r = json.load(open("out.json"))
p = r["phase_seconds"]
assert set(p) == {"load", "preprocess", "split", "search", "check"}, p
assert r["check"]["passed"] and r["out"] == "optimized.json", r["check"]
print("phase seconds:", p)
' || fail "the JSON summary: $(head -c 300 out.json)"
[ -s optimized.json ] || fail "nothing written"
echo "time_limit_test: ok"
