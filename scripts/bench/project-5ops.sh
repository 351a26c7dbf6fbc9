#!/usr/bin/env bash
# Issue 20's projection table: TASO's opset (or --opset) at 5 operators on
# samples of the work units, then the full run's wall time, memory and disk
# per rank for 16, 64 and 256 ranks, and the same at 6 operators by the last
# step's growth. The model is in project_5ops.py's header; the runs go under
# --out (default scripts/bench/out/project), so --reuse prints the table again.
#   scripts/bench/project-5ops.sh [--opset FILE] [--max-ops 5] [--fractions "0.0005 0.002"]
#                                 [--seed 1] [--ranks 2] [--bound 4G] [--reuse] [--enumerate-args "..."]
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/bench/common.sh
echo "machine: $machine"
/usr/bin/python3 scripts/bench/project_5ops.py --superopt "${SUPEROPT:-build/superopt}" \
  --out scripts/bench/out/project "$@"
