#!/bin/sh
# `superopt optimize --mark-suspects`: without the flag the database is left
# byte for byte as it was; with it the wrong rule (rule 1 of the bad-rule
# fixture) becomes `unknown` with a note, the right one stays verified, and a
# second run no longer uses the marked rule.
#   mark_suspects_test.sh SUPEROPT RULES.h5 MODEL.json WORKDIR
# Prints "mark_suspects: ok" on success, "mark_suspects: FAIL: ..." otherwise.
set -u
superopt=$1
rules=$2
model=$3
work=$4

fail() {
  echo "mark_suspects: FAIL: $*"
  exit 1
}

mkdir -p "$work" || fail "cannot create $work"
copy=$work/marked.h5
cp "$rules" "$copy" || fail "cannot copy $rules"

out=$("$superopt" optimize "$model" --rules "$copy") || fail "optimize without --mark-suspects exited $?"
echo "$out" | grep -q "^suspect rule 1: " || fail "no suspect rule 1 in: $out"
cmp -s "$rules" "$copy" || fail "the database changed without --mark-suspects"

out=$("$superopt" optimize "$model" --rules "$copy" --mark-suspects) || fail "optimize --mark-suspects exited $?"
echo "$out" | grep -q "^suspect rule 1: .*marked unknown in $copy" || fail "no marking reported in: $out"
show1=$("$superopt" db show "$copy" --rule 1) || fail "db show --rule 1 exited $?"
echo "$show1" | grep -Eq "^status: +unknown" || fail "rule 1 is not unknown: $show1"
echo "$show1" | grep -Eq "^note: +suspect: verified until superopt optimize" || fail "rule 1 has no suspect note: $show1"
show0=$("$superopt" db show "$copy" --rule 0) || fail "db show --rule 0 exited $?"
echo "$show0" | grep -Eq "^status: +verified" || fail "rule 0 is no longer verified: $show0"

out=$("$superopt" optimize "$model" --rules "$copy") || fail "optimize after marking exited $?"
echo "$out" | grep -q "^suspect rule" && fail "the marked rule was used again: $out"
echo "$out" | grep -Eq "^check: +passed" || fail "the check did not pass after marking: $out"
echo "mark_suspects: ok"
