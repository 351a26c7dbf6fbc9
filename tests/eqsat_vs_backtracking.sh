#!/bin/sh
# eqsat's cost is at most backtracking's on a model (issue 35's first target),
# or at most RATIO times it; EQSAT_ARGS go to eqsat's optimize:
#   eqsat_vs_backtracking.sh SUPEROPT MODEL RULES [RATIO [EQSAT_ARGS...]]
# Both runs must pass the numerical check; prints both costs.
set -eu
superopt=$1
model=$2
rules=$3
ratio=${4:-1}
shift 3
[ $# -gt 0 ] && shift
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
"$superopt" optimize "$model" --rules "$rules" --json >"$dir/bt.json"
"$superopt" optimize "$model" --rules "$rules" --search eqsat --json "$@" >"$dir/eq.json"
/usr/bin/python3 - "$dir/bt.json" "$dir/eq.json" "$ratio" <<'PY'
import json, sys
bt, eq = (json.load(open(p)) for p in sys.argv[1:3])
ratio = float(sys.argv[3])
print(f"backtracking {bt['cost_after']:.4f} ms, eqsat {eq['cost_after']:.4f} ms "
      f"({eq['eqsat']['nodes']} e-nodes, {eq['eqsat']['iterations']} iterations in {eq['eqsat']['rounds']} rounds, "
      f"{eq['eqsat']['stop_reason']})")
assert bt["check"]["passed"] and eq["check"]["passed"], "a check failed"
assert eq["eqsat"]["nodes"] > 0, "eqsat did not run"
if eq["cost_after"] > bt["cost_after"] * ratio * (1 + 1e-9):
    sys.exit(f"FAIL: eqsat costs more than {ratio} times backtracking's")
PY
