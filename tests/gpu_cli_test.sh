#!/bin/sh
# The GPU commands end to end: `measure`, `run --gpu` and `optimize --cost gpu`.
# Without a CUDA device (CI) each must exit 2 with one line saying
# "no CUDA device"; with one, each must succeed and `run --check` must pass.
#   gpu_cli_test.sh SUPEROPT RULES_DB GRAPH_FILE SCRATCH_DIR
set -u
bin=$1 rules=$2 graph=$3 dir=$4
mkdir -p "$dir" || exit 1
fail() { echo "gpu_cli_test: FAIL: $*"; exit 1; }

if "$bin" version | grep -q '^cuda device:'; then
  echo "a CUDA device is present: the commands must work"
  "$bin" run builtin:squeezenet --gpu --check --repeat 5 --op-sum || fail "run --gpu --check"
  rm -f "$dir/costs.h5"
  "$bin" measure builtin:squeezenet --out "$dir/costs.h5" --repeat 5 || fail "measure"
  "$bin" graph check builtin:squeezenet --cost "table:$dir/costs.h5" --json | grep -q '"cost_fallbacks": 0' ||
    fail "the measured table does not cover squeezenet"
  "$bin" measure builtin:squeezenet --out "$dir/costs.h5" --repeat 5 | grep -q '^measured 0 new signatures' ||
    fail "measure did not skip signatures already in the table"
  "$bin" optimize "$graph" --rules "$rules" --allow-unverified --budget 20 --cost gpu >/dev/null ||
    fail "optimize --cost gpu"
  echo "gpu_cli_test: ok (GPU)"
  exit 0
fi

echo "no CUDA device: version says so, each command must exit 2 with one line"
"$bin" version >"$dir/version.txt" 2>&1 || fail "version exited $?"
grep -Eq '^cuda devices: none: no CUDA device \(|^cuda: not built' "$dir/version.txt" ||
  fail "version does not say 'no CUDA device': $(grep cuda "$dir/version.txt")"
expect_no_device() {
  "$@" >"$dir/out.txt" 2>"$dir/err.txt"
  code=$?
  [ "$code" -eq 2 ] || fail "$* exited $code, expected 2"
  [ "$(wc -l <"$dir/err.txt")" -eq 1 ] || fail "$*: stderr is not one line: $(cat "$dir/err.txt")"
  grep -q "no CUDA device" "$dir/err.txt" || fail "$*: stderr lacks 'no CUDA device': $(cat "$dir/err.txt")"
  cat "$dir/err.txt"
}
expect_no_device "$bin" measure builtin:squeezenet --out "$dir/costs.h5"
expect_no_device "$bin" run builtin:squeezenet --gpu
expect_no_device "$bin" run builtin:squeezenet --gpu --check --json
expect_no_device "$bin" optimize "$graph" --rules "$rules" --allow-unverified --cost gpu
expect_no_device "$bin" graph check builtin:squeezenet --cost gpu
[ ! -e "$dir/costs.h5" ] || fail "measure wrote a table without a device"
# The GPU backend is a library loaded on first use: one that is missing or is
# not a library is named in the same one line.
if [ -f "$(dirname "$bin")/libsuperopt_gpu.so" ]; then
  export SUPEROPT_GPU_BACKEND="$dir/missing.so"
  expect_no_device "$bin" run builtin:squeezenet --gpu
  grep -q "could not be loaded: $dir/missing.so: no such file" "$dir/err.txt" || fail "a missing backend is not named"
  export SUPEROPT_GPU_BACKEND="$graph"
  expect_no_device "$bin" measure builtin:squeezenet --out "$dir/costs.h5"
  grep -q "could not be loaded: .*$graph" "$dir/err.txt" || fail "a backend that is no library is not named"
  "$bin" version | grep -q '^cuda devices: none: no CUDA device (the GPU backend' ||
    fail "version does not say that the backend could not be loaded"
  unset SUPEROPT_GPU_BACKEND
fi
echo "gpu_cli_test: ok (no device)"
