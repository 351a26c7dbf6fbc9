#!/bin/sh
# Runs a graph on the CPU reference with --dump, then its PyTorch version against that dump
# (float64); the exit code is torch_models.py's (0 pass, 1 outputs differ, 2 error).
#   torch_check.sh SUPEROPT PYTHON TORCH_MODELS WORKDIR MODEL [SED_EXPR]
# With SED_EXPR (a graph file only) the PyTorch side gets the file edited by it, so that a test
# can expect the comparison to fail; an expression that changes nothing is an error.
set -eu
superopt=$1 python=$2 torch_models=$3 work=$4 model=$5
mkdir -p "$work"
base=$work/$(basename "$model" .json | tr ':/' '__')
"$superopt" graph run "$model" --seed 7 --dump "$base.h5" >/dev/null
if [ $# -ge 6 ]; then
  sed "$6" "$model" >"$base.edited.json"
  if cmp -s "$model" "$base.edited.json"; then
    echo "torch_check.sh: '$6' does not change $model" >&2
    exit 2
  fi
  model=$base.edited.json
fi
exec "$python" "$torch_models" "$model" --superopt "$superopt" --check-against "$base.h5"
