#!/bin/bash
# A numerical check that did not run is "not checked", never "passed" (issue
# 37, item 12): `optimize builtin:squeezenet --cost cpu --time-limit 20`
# printed "check: passed (max relative error 0, cut short by the time limit
# after 0 of 38 operators ...)". Here a check of seconds (30 matmuls of
# 1024x1024 in double) meets --time-limit 1: text and --json say "not
# checked", how far it got, and no error figure; --json's passed is false.
#   check_status_test.sh SUPEROPT RULES
set -u
bin=$1
rules=$2
test_name=check_status_test
. "$(dirname "$0")/temp_work.sh"
cd "$work" || exit 1

/usr/bin/python3 "$(dirname "$0")/make_chain.py" matmul 30 1024 >chain.json || fail "the generator"
"$bin" optimize chain.json --rules "$rules" --time-limit 1 --e2e-rounds 0 >out.txt 2>err.txt ||
  fail "text: exit $?: $(cat err.txt)"
line=$(grep "^check:" out.txt) || fail "no check line: $(cat out.txt)"
echo "$line"
[[ "$line" =~ ^check:\ +not\ checked\ \(cut\ short\ by\ the\ time\ limit\ after\ [0-9]+\ of\ 30\ operators ]] ||
  fail "the check line: $line"
[[ "$line" == *passed* || "$line" == *"relative error"* ]] && fail "a check that did not run reads as run: $line"
"$bin" optimize chain.json --rules "$rules" --time-limit 1 --e2e-rounds 0 --json >out.json 2>err.txt ||
  fail "json: exit $?: $(cat err.txt)"
/usr/bin/python3 -c '
import json
c = json.load(open("out.json"))["check"]
assert c["status"] == "not checked" and c["passed"] is False and c["cut_short"], c
assert "cut short by the time limit after" in c["how"] and "of 30 operators" in c["how"], c
print("json check:", c)
' || fail "the JSON check: $(head -c 600 out.json)"
echo "check_status_test: ok"
