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

// Per folded tensor, the index of the first one with the same shape and values
// (its own index when none): equal folded weights share one buffer. Merging an
// RNN's matmuls leaves one concatenated weight per time step (sru: five
// 1024x3072 copies, 60 MB where the input read 12 MB; each step missed the cache
// and the graph ran 2x slower than its input on the CPU).
std::vector<size_t> first_equal_weights(const FoldedWeights& w);

// The values of the given tensors of g on the CPU reference in double (the
// subgraph that computes them only), from the seeded sources.
std::vector<Tensor<double>> reference_values(const Graph& g, const std::vector<TensorRef>& tensors,
                                             uint64_t seed);

}  // namespace superopt
