// oneDNN kernels of the operators imported models bring (layer_norm, the
// eltwise activations, resize, slice, reduce_mean, expand); build_kernel
// (cpu_kernels.h) asks here before falling back to the reference kernel.
#pragma once

#include <optional>
#include <span>

#include "runtime/exec/cpu/cpu_kernels.h"

namespace superopt::cpu {

// The node's primitives for inputs in the given formats, or nullopt when this
// file has none for its operator.
std::optional<NodeKernel> zoo_kernel(const Graph& g, const Node& n, std::span<const memory::desc> given);

}  // namespace superopt::cpu
