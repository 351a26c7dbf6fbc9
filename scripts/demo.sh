#!/usr/bin/env bash
# The main job on built-in defaults: build superopt, check and run the bundled
# ResNet-50 bottleneck block on the CPU reference, then generate the rules of
# TASO's operator set with up to 3 operators on 2 MPI ranks and summarise them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
build=${BUILD_DIR:-build}
superopt=$build/superopt
example=data/graphs/resnet_bottleneck.json
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # containers often run as root

echo "== superopt graph check $example"
"$superopt" graph check "$example"
echo
echo "== superopt graph run $example"
"$superopt" graph run "$example"
echo
echo "== mpirun -n 2 superopt enumerate --max-ops 3 (TASO's operator set)"
mpirun -n 2 --oversubscribe "$superopt" enumerate --max-ops 3 --out "$build/demo-rules.h5" --force
echo
echo "== superopt db info $build/demo-rules.h5"
"$superopt" db info "$build/demo-rules.h5"
