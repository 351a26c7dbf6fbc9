// The weight-only part of a graph computed once on the CPU reference (TASO's
// preprocessing): one implementation for every executor, so the CPU and GPU
// backends fold exactly the same tensors to exactly the same values.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/core/tensor.h"

namespace superopt {

// The weight-only tensors an executor must hold (weight_only_frontier) with
// their values in double, from the seeded sources that random_sources(seed)
// gives the CPU reference (a check with the same seed sees the same numbers).
struct FoldedWeights {
  std::vector<TensorRef> tensors;
  std::vector<Tensor<double>> values;  // values[i] of tensors[i]
};
FoldedWeights fold_weights(const Graph& g, const std::vector<bool>& weight_only, uint64_t seed);

// The values of the given tensors of g on the CPU reference in double (the
// subgraph that computes them only), from the seeded sources.
std::vector<Tensor<double>> reference_values(const Graph& g, const std::vector<TensorRef>& tensors,
                                             uint64_t seed);

}  // namespace superopt
