// Shared by the GPU tests: a main that exits 77 (CTest: skipped) without a CUDA
// device, and a GPU-versus-CPU-reference comparison of whole graphs.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <limits>

#include "runtime/arith.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/gpu_executor.h"
#include "runtime/evaluator.h"

namespace superopt::test {

// max over outputs of max|gpu - ref| / max|ref|, the reference in double from the same seeded values.
inline double gpu_relative_error(const Graph& g, uint64_t seed = 7) {
  cuda::GpuContext ctx;
  cuda::GpuGraph gpu(ctx, g, seed);
  gpu.run();
  gpu.run();  // a second run: the first chose the algorithms, this one uses them
  std::vector<Tensor<float>> got = gpu.outputs();
  RealArith<double> ar;
  std::vector<Tensor<double>> want = evaluate(g, ar, random_sources(ar, seed));
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    REQUIRE(got[i].shape == want[i].shape);
    double diff = 0, scale = 0;
    for (int64_t j = 0; j < want[i].size(); ++j) {
      if (!std::isfinite(want[i][j]) || !std::isfinite(got[i][j]))
        return std::numeric_limits<double>::infinity();
      diff = std::max(diff, std::fabs(got[i][j] - want[i][j]));
      scale = std::max(scale, std::fabs(want[i][j]));
    }
    worst = std::max(worst, scale > 0 ? diff / scale : diff);
  }
  return worst;
}

inline int run_gpu_tests(int argc, char** argv) {
  cuda::CudaInfo info = cuda::query();
  if (info.devices.empty()) {
    std::cout << "skipped: no CUDA device (" << info.no_device_reason << ")\n";
    return 77;
  }
  return Catch::Session().run(argc, argv);
}

}  // namespace superopt::test
