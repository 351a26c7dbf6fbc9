#!/usr/bin/env bash
# The main job on built-in defaults: build superopt, then check and run the
# bundled ResNet-50 bottleneck block on the CPU reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
superopt=${BUILD_DIR:-build}/superopt
example=data/graphs/resnet_bottleneck.json
echo "== superopt graph check $example"
"$superopt" graph check "$example"
echo
echo "== superopt graph run $example"
"$superopt" graph run "$example"
