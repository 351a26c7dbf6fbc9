// Folding of weight-only subgraphs on the CPU reference.
#include "runtime/exec/weight_folding.h"

#include "runtime/core/arith.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"

namespace superopt {

std::vector<Tensor<double>> reference_values(const Graph& g, const std::vector<TensorRef>& tensors,
                                             uint64_t seed) {
  if (tensors.empty()) return {};
  Graph sub = g;
  sub.set_outputs(tensors);
  sub.remove_unused();
  RealArith<double> ar;
  return evaluate(sub, ar, random_sources(ar, seed));
}

FoldedWeights fold_weights(const Graph& g, const std::vector<bool>& weight_only, uint64_t seed) {
  FoldedWeights folded;
  folded.tensors = weight_only_frontier(g, weight_only);
  folded.values = reference_values(g, folded.tensors, seed);
  return folded;
}

}  // namespace superopt
