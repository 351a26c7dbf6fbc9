#!/bin/bash
# `optimize --time-limit 10` on a graph whose numerical check alone takes far
# longer (large matmuls in double on the CPU reference): the check stops at the
# limit, the result is the input graph unchanged (nothing unchecked written),
# one line on stderr says so, and the JSON says which phase used the time. The
# check used to run to its end whatever the limit. (The input's half of the
# check runs before the search, which it leaves no time here.)
#   check_time_limit_test.sh SUPEROPT RULES
set -u
bin=$1
rules=$2
test_name=check_time_limit_test
. "$(dirname "$0")/temp_work.sh"
cd "$work" || exit 1

# 100 matmuls of 1024x1024: 2 GFLOP each in double (0.2 s or more), 20 s or
# more for the input's half of the check.
/usr/bin/python3 "$(dirname "$0")/make_chain.py" matmul 100 1024 >chain.json || fail "the generator"
limit=10
SECONDS=0
"$bin" optimize chain.json --rules "$rules" --time-limit $limit --json --out optimized.json >out.json 2>err.txt ||
  fail "exit $?: $(cat err.txt)"
echo "optimize --time-limit $limit, a check of minutes: $SECONDS s"
# Generous: a loaded 2-core machine may be slow to load the rules, and one
# matmul runs to its end once started.
[ "$SECONDS" -lt $((5 * limit * time_scale)) ] || fail "took $SECONDS s"
grep -Eq "^superopt: --time-limit $limit s ran out in the numerical check \(load .*check .* s\): the input graph is the result, unchanged \([0-9]+ applications discarded unchecked\)$" err.txt ||
  fail "the line on stderr: $(cat err.txt)"
/usr/bin/python3 -c '
import json
r = json.load(open("out.json"))
c = r["check"]
assert c["cut_short"] and not c["passed"] and c["status"] == "not checked" and "cut short by the time limit" in c["how"], c
assert r["rules_applied"] == {} and r["rule_sequence"] == [], r
assert r["cost_after"] == r["cost_before"], r
p = r["phase_seconds"]
assert p["check"] > 0 and p["check"] < 5 * '$((limit * time_scale))', p
print("phase seconds:", p)
a, b = json.load(open("chain.json")), json.load(open("optimized.json"))
ops = lambda g: sorted(n["op"] for n in g["nodes"])
assert ops(a) == ops(b), ("not the input graph", ops(b))
' || fail "the JSON summary or the graph written: $(head -c 400 out.json)"
echo "check_time_limit_test: ok"
