#!/usr/bin/env bash
# Installs the Debian packages superopt needs; does nothing when they are all present.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libopenmpi-dev openmpi-bin
  libhdf5-dev hdf5-tools
  libxxhash-dev libz3-dev
  libboost-program-options-dev libboost-graph-dev
  nlohmann-json3-dev catch2
  slurm-wlm munge
  python3-h5py python3-matplotlib python3-z3
  libdnnl-dev  # runtime/exec/cpu/: oneDNN 2.6, the CPU executor
  python3-torch  # tests/torch_tests.cmake: PyTorch 1.13 (CPU), about 570 MB
  libonnx-dev libprotobuf-dev protobuf-compiler  # runtime/formats/onnx_*: ONNX 1.12 C++ and protobuf
  python3-onnx python3-torchvision               # tests/onnx_tests.cmake, scripts/bench/onnx_torch.py
  clang-14 libclang-rt-14-dev libomp-14-dev      # build-asan: ASan+UBSan and libFuzzer (tests/fuzz/), OpenMP for clang
  coinor-libcbc-dev                              # search/eqsat/: CBC, the ILP solver of exact extraction
  pybind11-dev python3-pybind11 python3-pytest   # python/: the superopt Python package and its tests
  libopenblas0-pthread python3-threadpoolctl     # scripts/bench/: PyTorch baselines with a real BLAS (not libblas3)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
