// Shared by the GPU tests: a main that exits 77 (CTest: skipped) without a CUDA
// device, and a GPU-versus-CPU-reference comparison of whole graphs.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>
#include <limits>
#include "tests/catch_runner.h"

#include "runtime/core/arith.h"
#include "runtime/core/evaluator.h"
#include "runtime/exec/cuda/cuda_device.h"
#include "runtime/exec/cuda/gpu_check.h"
#include "runtime/exec/cuda/gpu_executor.h"

namespace superopt::test {

// The worst relative error over the graph outputs against the CPU reference in
// double from the same seeded values (end to end: errors compound through the graph).
inline double gpu_relative_error(const Graph& g, uint64_t seed = 7) {
  cuda::GpuContext ctx;
  cuda::GpuGraph gpu(ctx, g, seed);
  gpu.run();
  gpu.run();  // a second run: the first chose the algorithms, this one uses them
  std::vector<Tensor<float>> got = gpu.outputs();
  RealArith<double> ar;
  std::vector<Tensor<double>> want = evaluate(g, ar, random_sources(ar, seed));
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, relative_error(got[i], want[i]));
  return worst;
}

// Every operator on the GPU's own inputs and every folded weight, against the CPU reference.
inline cuda::NodeCheck gpu_node_check(const Graph& g, uint64_t seed = 7) {
  cuda::GpuContext ctx;
  cuda::GpuGraph gpu(ctx, g, seed);
  gpu.run();
  return cuda::check_each_node(g, gpu, seed);
}

inline int run_gpu_tests(int argc, char** argv) {
  cuda::CudaInfo info = cuda::query();
  if (info.devices.empty()) {
    std::cout << "skipped: no CUDA device (" << info.no_device_reason << ")\n";
    return 77;
  }
  return superopt::test::run_catch_session(argc, argv);
}

}  // namespace superopt::test
