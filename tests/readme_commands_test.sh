#!/usr/bin/env bash
# The README's cheap commands run as written: every line of its code blocks
# that starts with `build/superopt` and needs neither a database made by an
# earlier command (rules.h5), a GPU, nor minutes under load (measure, run,
# --cost cpu, verify-axioms), run from a temporary folder that looks like the
# repository root (build/, data/, tests/ linked). At least 6 must run, so that a README whose blocks
# the extraction no longer finds fails too.
#   readme_commands_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
test_name=readme_commands_test
. "$(dirname "$0")/temp_work.sh"
ln -s "$build" "$work/build" && ln -s "$src/data" "$work/data" && ln -s "$src/tests" "$work/tests"
cd "$work"
# Lines inside ``` blocks, then the cheap ones.
awk '/^```/ { inside = !inside; next } inside' "$src/README.md" |
  grep '^build/superopt ' | grep -Ev 'rules(-mpi)?\.h5|--gpu|--cost (gpu|cpu)|--device|measure |table:cpu|verify-axioms' >commands.txt || true
ran=0
while IFS= read -r line; do
  echo "\$ $line"
  bash -c "$line" >out.txt 2>&1 || fail "'$line' exited $?: $(tail -n 3 out.txt)"
  ran=$((ran + 1))
done <commands.txt
[ "$ran" -ge 6 ] || fail "only $ran README commands found to run"
echo "readme_commands_test: ok ($ran commands)"
