// Folding of weight-only subgraphs on the CPU reference.
#include "runtime/exec/weight_folding.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

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

std::vector<size_t> first_equal_weights(const FoldedWeights& w) {
  std::vector<size_t> first(w.values.size());
  std::unordered_map<uint64_t, std::vector<size_t>> by_hash;
  for (size_t i = 0; i < w.values.size(); ++i) {
    const Tensor<double>& v = w.values[i];
    const uint64_t h = std::hash<std::string_view>{}(
        std::string_view(reinterpret_cast<const char*>(v.data.data()), v.data.size() * sizeof(double)));
    std::vector<size_t>& same_hash = by_hash[h];
    auto twin = std::find_if(same_hash.begin(), same_hash.end(), [&](size_t j) {
      return w.values[j].shape == v.shape && w.values[j].data == v.data;
    });
    first[i] = twin != same_hash.end() ? *twin : i;
    if (twin == same_hash.end()) same_hash.push_back(i);
  }
  return first;
}

}  // namespace superopt
