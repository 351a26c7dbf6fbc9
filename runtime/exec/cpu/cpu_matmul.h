// A matmul node as a oneDNN matmul primitive: the dimensions it runs at (a
// broadcast weight over a batch becomes one GEMM) and its weight's layout.
#pragma once

#include <span>

#include "runtime/exec/cpu/cpu_kernels.h"

namespace superopt::cpu {

// Batched [..., m, k] x [..., k, n] for inputs in the `given` formats; `weight`
// says which inputs are folded weights; `post` the fused bias, sum and activation.
NodeKernel matmul_kernel(const Graph& g, const Node& n, std::span<const memory::desc> given,
                         std::span<const bool> weight, const PostOps& post);

}  // namespace superopt::cpu
