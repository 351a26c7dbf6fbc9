// GPU test: the CUDA driver, a kernel, cuBLAS and cuDNN work on this machine's
// device. Exits 77 (reported by CTest as skipped) when there is no device.
#include <catch2/catch.hpp>

#include "tests/catch_runner.h"

#include <iostream>

#include "runtime/exec/cuda/cuda_device.h"

using namespace superopt;

TEST_CASE("a kernel, cuBLAS and cuDNN run on device 0", "[gpu]") {
  cuda::CudaInfo info = cuda::query();
  REQUIRE_FALSE(info.devices.empty());
  REQUIRE_FALSE(info.devices[0].name.empty());
  REQUIRE(info.cudnn_version >= 90000);
  REQUIRE(cuda::self_test() == "");
}

int main(int argc, char** argv) {
  cuda::CudaInfo info = cuda::query();
  if (info.devices.empty()) {
    std::cout << "skipped: no CUDA device (" << info.no_device_reason << ")\n";
    return 77;
  }
  return superopt::test::run_catch_session(argc, argv);
}
