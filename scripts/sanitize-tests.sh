#!/usr/bin/env bash
# The sanitizer run of the tests: builds superopt, its tests and the fuzz
# harnesses with clang-14 under ASan+UBSan (-DSUPEROPT_FUZZ=ON, in build-asan or
# $ASAN_BUILD_DIR) and runs the unit, command-line and MPI tests and a short run
# of every fuzz harness (label fuzz); scripts/sanitize_selection.py says which
# tests are left out and why (Slurm, PyTorch, GPU, the papers' experiments, and
# the few that take minutes at -O1 under the sanitizers). With --all, every
# test, those too (an hour or more on 2 cores; not for CI).
#   scripts/sanitize-tests.sh [--all] [CTEST_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
selection=
if [ "${1:-}" = --all ]; then selection=--all; shift; fi
build_dir=${ASAN_BUILD_DIR:-build-asan}
# Without CUDA: the GPU tests are left out here anyway, and every test process
# would load cuBLAS, whose initialisation took 0.3 s a process on a 2-core VM.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DSUPEROPT_FUZZ=ON \
  -DSUPEROPT_CUDA=OFF >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
# Every report stops the process with a failing exit, leaks included, with no
# suppression file: what Open MPI keeps from MPI_Init and MPI_Finalize is
# excluded where it is allocated (runtime/mpi/mpi_world.cc). The tests that
# start several ranks (label mpi) run without the leak check: there Open MPI
# also keeps memory from inside its collectives, allocated by plugins it
# unloads before the check, whose stacks no suppression can name (and so does
# full_disk, whose file size limit breaks Open MPI's shared-memory setup).
checks=halt_on_error=1:strict_init_order=1:check_initialization_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
src=$PWD
cd "$build_dir"
tests=$(ctest --show-only=json-v1)
# The tests' own limits are scaled in this build (tests/time_scale.cmake); the
# default for tests without one (the unit tests) is raised to match.
set -- --timeout 3600 "$@"
status=0
ASAN_OPTIONS=$checks ctest --output-on-failure -j "$(nproc)" \
  -I "$(/usr/bin/python3 "$src/scripts/sanitize_selection.py" other $selection <<<"$tests")" "$@" || status=1
ASAN_OPTIONS=$checks:detect_leaks=0 ctest --output-on-failure -j "$(nproc)" \
  -I "$(/usr/bin/python3 "$src/scripts/sanitize_selection.py" mpi $selection <<<"$tests")" "$@" || status=1
exit $status
