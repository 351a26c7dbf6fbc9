#!/usr/bin/env bash
# Installs dependencies (if missing), configures and builds superopt into build/ (or $BUILD_DIR):
# every target (the binary, the tests, the Python package), or only $BUILD_TARGETS
# (e.g. BUILD_TARGETS=superopt, which scripts/demo.sh builds).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} ${CMAKE_ARGS:-} >/dev/null
read -r -a targets <<<"${BUILD_TARGETS:-all}"
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
