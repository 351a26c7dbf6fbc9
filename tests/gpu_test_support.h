// Shared by the GPU tests: a main that exits 77 (CTest: skipped) without a CUDA
// device, and a GPU-versus-CPU-reference comparison of whole graphs.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <limits>

#include "runtime/arith.h"
#include "runtime/cost_model.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/gpu_executor.h"
#include "runtime/evaluator.h"
#include "runtime/kernels.h"

namespace superopt::test {

// max|gpu - ref| / max|ref| (infinite when either side is not finite).
inline double relative_error(const Tensor<float>& got, const Tensor<double>& want) {
  REQUIRE(got.shape == want.shape);
  double diff = 0, scale = 0;
  for (int64_t j = 0; j < want.size(); ++j) {
    if (!std::isfinite(want[j]) || !std::isfinite(got[j])) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::fabs(got[j] - want[j]));
    scale = std::max(scale, std::fabs(want[j]));
  }
  return scale > 0 ? diff / scale : diff;
}

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

struct NodeError {
  double error = 0;
  std::string node;
};

// Every operator run on the GPU against the CPU reference operator applied to
// the GPU's own inputs of that node: kernel errors without their compounding.
inline NodeError worst_node_error(const Graph& g, uint64_t seed = 7) {
  cuda::GpuContext ctx;
  cuda::GpuGraph gpu(ctx, g, seed);
  gpu.run();
  const std::vector<bool> weight_only = weight_only_nodes(g);
  RealArith<double> ar;
  NodeError worst;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (weight_only[id] || n.op == OpType::input) continue;
    std::vector<Tensor<double>> inputs;
    for (TensorRef t : n.inputs()) {
      Tensor<float> f = gpu.download(t);
      inputs.emplace_back(f.shape, std::vector<double>(f.data.begin(), f.data.end()));
    }
    std::vector<const Tensor<double>*> ptrs;
    for (const Tensor<double>& t : inputs) ptrs.push_back(&t);
    std::vector<Tensor<double>> want =
        run_op(ar, n.op, n.params, std::span<const Tensor<double>* const>(ptrs),
               std::span<const TensorDesc>(n.output_array.data(), size_t(n.num_outputs())));
    for (int port = 0; port < n.num_outputs(); ++port) {
      double e = relative_error(gpu.download({id, port}), want[port]);
      if (e >= worst.error) worst = {e, tensor_label(g, {id, port}) + " (" + op_signature(g, id) + ")"};
    }
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
