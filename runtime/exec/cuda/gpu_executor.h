// A whole graph resident on the GPU: weight-only parts folded once on the CPU
// (TASO's preprocessing), sources uploaded, one buffer per activation tensor,
// and a run() that enqueues every operator in topological order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/core/tensor.h"
#include "runtime/exec/cuda/gpu_context.h"

namespace superopt::cuda {

class GpuGraph {
 public:
  // Inputs and weights get the seeded values of random_sources(RealArith<double>, seed)
  // rounded to float, so a CPU reference with the same seed sees the same numbers.
  GpuGraph(GpuContext& ctx, const Graph& g, uint64_t seed);

  // Enqueues the operators on the context's stream (does not wait).
  void run();
  // Waits for the stream and copies the graph outputs back.
  std::vector<Tensor<float>> outputs();
  // Waits for the stream and copies one tensor back: any input of an operator
  // run on the GPU, or any operator's output (for per-node checks).
  Tensor<float> download(TensorRef t);
  // Number of operators run() launches (views and folded nodes excluded).
  int num_launches() const { return static_cast<int>(steps_.size()); }

 private:
  struct Step {
    NodeId id;
    std::string key;  // op_signature
    std::vector<const float*> inputs;
    std::vector<float*> outputs;
  };

  float* allocate(int64_t elements, const std::string& what);

  GpuContext& ctx_;
  const Graph& graph_;
  std::vector<DeviceBuffer> buffers_;
  std::vector<std::vector<float*>> tensors_;  // [node][port] device pointer
  std::vector<Step> steps_;
};

}  // namespace superopt::cuda
