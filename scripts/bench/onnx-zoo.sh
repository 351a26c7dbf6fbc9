#!/usr/bin/env bash
# Issue 36's table: every classification and segmentation model of the installed
# torchvision, exported at opsets 17 and 13 with batch normalization kept
# (TrainingMode.PRESERVE), imported, run and compared with PyTorch in float64
# (bound 1e-8), optimized with taso-3, conv-bias-3 and conv-activations-3 (the
# biased convolutions imported models are made of, and their activations), and timed on the CPU at 1 thread before and
# after (scripts/bench/onnx_zoo.py; inputs 1x3x64x64 where the model allows).
# Hours on 2 cores: run it at low priority, e.g.
#   nice -n 19 bash scripts/bench/onnx-zoo.sh > zoo.log 2>&1 &
# Arguments go to onnx_zoo.py (--models resnet18 vgg11, --opsets 17, --model-s 600,
# --import-only for the import column alone, minutes instead of hours).
# Writes scripts/bench/out/onnx-zoo/zoo.md and zoo.csv.
set -euo pipefail
cd "$(dirname "$0")/../.."
python=${PYTHON:-/usr/bin/python3}
exec $python scripts/bench/onnx_zoo.py --superopt "${SUPEROPT:-build/superopt}" --rules data/rules/taso-3.h5,data/rules/conv-bias-3.h5,data/rules/conv-activations-3.h5,data/rules/linear-3.h5 "$@"
