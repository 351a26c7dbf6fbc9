#!/bin/bash
# `optimize --max-memory 2M` on a 600-operator chain of 8x8 tensors: the check
# needs a few kilobytes, but every graph the search queues is a copy of 600
# nodes (hundreds of kilobytes, and a 600-operator chain offers hundreds of
# rewrites per graph: a budget of 1G fills after 12 graphs explored). The
# search stops exploring at the budget, keeps the best graph found, the check
# runs, the graph is written, one line on stderr says so and the JSON has
# memory_full. The search's copies were not counted at all before.
#   search_memory_test.sh SUPEROPT RULES
set -u
bin=$1
rules=$2
test_name=search_memory_test
. "$(dirname "$0")/temp_work.sh"
cd "$work" || exit 1

/usr/bin/python3 "$(dirname "$0")/make_chain.py" matmul,ewadd 600 8 >chain.json || fail "the generator"
"$bin" optimize chain.json --rules "$rules" --split-threshold 0 --max-memory 2M --json --out optimized.json \
  >out.json 2>err.txt || fail "exit $?: $(cat err.txt)"
[ "$(wc -l <err.txt)" -eq 1 ] || fail "stderr is not one line: $(cat err.txt)"
grep -q "^superopt: the search's graph copies reached the memory budget of 2.1 MB (--max-memory): it stopped exploring and kept the best graph found$" err.txt ||
  fail "the line on stderr: $(cat err.txt)"
/usr/bin/python3 -c '
import json
r = json.load(open("out.json"))
assert r["memory_full"] and not r["finished"], r
assert r["search_held_bytes"] >= 2 * 1024 * 1024, r["search_held_bytes"]
assert r["check"]["passed"] and r["out"] == "optimized.json", r["check"]
' || fail "the JSON summary: $(head -c 600 out.json)"
[ -s optimized.json ] || fail "nothing written"

# Split into parts of 30 operators, each part's search has the budget to itself.
"$bin" optimize chain.json --rules "$rules" --max-memory 2M --budget 200 --json >split.json 2>err.txt ||
  fail "split: exit $?: $(cat err.txt)"
/usr/bin/python3 -c '
import json
r = json.load(open("split.json"))
assert r["memory_full"] and r["parts"] > 1 and r["check"]["passed"], r
assert r["search_held_bytes"] < 3 * 1024 * 1024, r["search_held_bytes"]
' || fail "the split run: $(head -c 600 split.json)"
echo "search_memory_test: ok"
