#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs every test under CTest
# (unit tests, MPI tests with several ranks, command-line tests; GPU tests skip without a device).
# Then builds again under AddressSanitizer and UndefinedBehaviorSanitizer with
# the fuzz harnesses (build-asan, clang-14) and runs there the tests
# scripts/sanitize-tests.sh lists and each fuzz harness briefly; any sanitizer
# report fails its test. SANITIZE=0 skips that second build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j "$(nproc)" "$@")
if [ "${SANITIZE:-1}" != 0 ]; then
  bash scripts/sanitize-tests.sh
fi
