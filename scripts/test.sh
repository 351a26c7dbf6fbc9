#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs every test under CTest
# (unit tests, MPI tests with several ranks, command-line tests; GPU tests skip without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" "$@"
