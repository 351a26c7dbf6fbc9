// Checks a graph run on the GPU against the CPU reference: every operator on
// the GPU's own inputs (kernel errors without their compounding through the
// graph), and every folded weight as uploaded.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/core/tensor.h"
#include "runtime/exec/cuda/gpu_executor.h"
#include "runtime/exec/reference_check.h"

namespace superopt::cuda {

// relative_error: runtime/exec/reference_check.h.

struct NodeCheck {
  double worst_node_error = 0;    // over operators, against the reference operator on the GPU's inputs
  std::string worst_node;         // "label (signature)"
  double worst_weight_error = 0;  // over folded weights, against their reference values
  std::string worst_weight;
};

// `gpu` must have run (its tensors hold the last run's values); `seed` is the one it was built with.
NodeCheck check_each_node(const Graph& g, GpuGraph& gpu, uint64_t seed);

}  // namespace superopt::cuda
