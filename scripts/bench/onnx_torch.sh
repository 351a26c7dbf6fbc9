#!/usr/bin/env bash
# Issue 14's table: every model, exported by PyTorch with batch norms kept
# (bound 1e-9) and folded (bound 1e-5), imported, optimized with taso-3 and
# compared with PyTorch in float64. Slow on 2 cores (inception_v3, wide_resnet50_2
# take minutes each); pass model names to run fewer. Writes onnx-torch-out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
superopt=${SUPEROPT:-build/superopt}
python=${PYTHON:-/usr/bin/python3}
for mode in --preserve ""; do
  # PyTorch with the OpenBLAS variables some machines set for old builds unset (torch_blas.py).
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $python scripts/bench/onnx_torch.py --superopt "$superopt" --rules data/rules/taso-3.h5 $mode "$@"
done
