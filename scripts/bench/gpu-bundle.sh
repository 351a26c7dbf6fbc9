#!/usr/bin/env bash
# Runs HERE (the build machine): builds superopt and the GPU test binaries, packs them with the
# shared libraries a GPU machine lacks (../shared/tools/device-bundle.sh) into .device-bundle/
# (ignored by git), adds a rule database and run-gpu.sh, and prints the device call to make.
#   scripts/bench/gpu-bundle.sh [--no-build] [--rules FILE]
# The bundle is one stripped, gzipped tarball so that it and the working tree stay under
# the device call's 64 MiB; it reports both and refuses above 60 MiB together. Rules: --rules FILE, else data/rules/taso-3.h5 when the repo ships it
# (then none is packed), else a 3-operator taso database generated and verified here (minutes).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=1
rules=
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) build=0; shift ;;
    --rules) rules=$2; shift 2 ;;
    *) echo "usage: $0 [--no-build] [--rules FILE]" >&2; exit 2 ;;
  esac
done
bundler=$(cd .. && pwd)/shared/tools/device-bundle.sh
[ -f "$bundler" ] || { echo "gpu-bundle.sh: no $bundler (the shared device-bundle tool)" >&2; exit 2; }

gpu_tests="cuda_device_test gpu_kernels_test gpu_runtime_test"
# superopt_gpu: the GPU backend (libsuperopt_gpu.so), a target only in a CUDA build.
if [ $build = 1 ]; then
  bash scripts/setup-deps.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  targets=(superopt)
  known=$(cmake --build build --target help)  # the GPU tests exist only in a CUDA build
  for t in superopt_gpu $gpu_tests; do
    grep -qw "$t" <<<"$known" && targets+=("$t")
  done
  cmake --build build -j "$(nproc)" --target "${targets[@]}"
fi
[ -x build/superopt ] || { echo "gpu-bundle.sh: no build/superopt (build first, or drop --no-build)" >&2; exit 2; }
# The GPU backend is a library superopt loads on first use, found beside the binary.
binaries=(build/superopt)
if [ -f build/libsuperopt_gpu.so ]; then
  binaries+=(build/libsuperopt_gpu.so)
else
  echo "gpu-bundle.sh: warning: no build/libsuperopt_gpu.so (a build without CUDA); measure and run --gpu will say no CUDA device" >&2
fi
for t in $gpu_tests; do [ -x "build/tests/$t" ] && binaries+=("build/tests/$t"); done

rm -rf .device-bundle
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
bash "$bundler" "$stage/bundle" "${binaries[@]}" >/dev/null
# CBC's CoinUtils needs a LAPACK, which Debian resolves to OpenBLAS's: 42 MB
# with libopenblas.so.0, a third of the bundle, pushing tree and bundle past
# 64 MiB. Only the ILP extraction calls it: the reference LAPACK and BLAS
# (7.8 MB) take its place, unless something else needs OpenBLAS itself.
ref=/usr/lib/x86_64-linux-gnu
# needs_openblas: a bundled file other than LAPACK itself that links OpenBLAS.
needs_openblas() {
  for f in "$stage"/bundle/bin/* "$stage"/bundle/lib/*; do
    [ "$(basename "$f")" != liblapack.so.3 ] && readelf -d "$f" 2>/dev/null | grep -q 'NEEDED.*\[libopenblas' && return 0
  done
  return 1
}
if [ -f "$stage/bundle/lib/libopenblas.so.0" ] && [ -f $ref/lapack/liblapack.so.3 ] && [ -f $ref/blas/libblas.so.3 ] &&
  ! needs_openblas; then
  cp -L $ref/lapack/liblapack.so.3 $ref/blas/libblas.so.3 "$stage/bundle/lib/"
  rm "$stage/bundle/lib/libopenblas.so.0"
fi
strip --strip-unneeded "$stage"/bundle/bin/* "$stage"/bundle/lib/* 2>/dev/null || true
mkdir -p .device-bundle
tar -czf .device-bundle/bundle.tar.gz -C "$stage" bundle
cp scripts/bench/run-gpu.sh .device-bundle/run-gpu.sh

if [ -n "$rules" ]; then
  cp "$rules" .device-bundle/rules.h5
elif [ ! -f data/rules/taso-3.h5 ]; then
  echo "gpu-bundle.sh: no data/rules/taso-3.h5: generating and verifying a 3-operator database" >&2
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  build/superopt enumerate --max-ops 3 --out .device-bundle/rules.h5 >/dev/null
  mpirun -n 3 --oversubscribe build/superopt verify .device-bundle/rules.h5 >/dev/null
fi

# What a device call carries: the tracked files, the untracked ones git does not
# ignore, and the bundle (carry). 64 MiB at most; refuse above 60 for a margin.
# The large rule databases are ignored (scripts/get-rules.sh restores them), so
# they do not travel: pass one with --rules to take it along.
mib() { awk "BEGIN{printf \"%.1f\", $1 / 1048576}"; }
bundle_bytes=$(du -sb .device-bundle | cut -f1)
# (a tracked file deleted here is not carried: stat skips it)
tree_files() { git ls-files -z --cached --others --exclude-standard | xargs -0r stat -c "$1" 2>/dev/null || true; }
tree_bytes=$(tree_files %s | awk '{s += $1} END {print s + 0}')
total=$((bundle_bytes + tree_bytes))
echo "bundle: .device-bundle $(mib "$bundle_bytes") MiB ($(ls .device-bundle | tr '\n' ' ')); working tree $(mib "$tree_bytes") MiB (tracked and untracked, not ignored); together $(mib "$total") MiB of the 64 a device call carries (refused above 60)"
if [ "$total" -gt $((60 * 1048576)) ]; then
  echo "gpu-bundle.sh: working tree $(mib "$tree_bytes") + bundle $(mib "$bundle_bytes") = $(mib "$total") MiB, above 60 MiB; the tree's largest files: $(tree_files '%s %n' | sort -rn | head -3 | awk '{printf "%s%s (%.1f MiB)", (NR > 1 ? ", " : ""), $2, $1 / 1048576}')" >&2
  exit 1
fi
cat <<EOF
device call (one H100 or H200; the run stops itself by 480 s and writes at most 6 files to \$OUT):
  run(command='bash .device-bundle/run-gpu.sh', carry=[".device-bundle"], timeout_s=560)
rehearse it here first (the same steps on the CPU, from the bundle):
  bash .device-bundle/run-gpu.sh --cpu --quick --out /tmp/rehearsal
EOF
