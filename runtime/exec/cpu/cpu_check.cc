// Per-node, per-weight and end-to-end checks of a CPU backend run.
#include "runtime/exec/cpu/cpu_check.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/core/arith.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/core/kernels.h"
#include "runtime/cost/cost_model.h"
#include "runtime/exec/reference_check.h"
#include "runtime/exec/weight_folding.h"

namespace superopt::cpu {
namespace {

void check_weights(const Graph& g, CpuGraph& graph, const std::vector<bool>& weight_only, uint64_t seed,
                   CpuCheck& check) {
  FoldedWeights folded = fold_weights(g, weight_only, seed);
  for (size_t i = 0; i < folded.tensors.size(); ++i) {
    const double e = relative_error(graph.download(folded.tensors[i]), folded.values[i]);
    if (e >= check.weight_error) {
      check.weight_error = e;
      check.worst_weight = tensor_label(g, folded.tensors[i]);
    }
  }
}

// Values below float's maximum with room for the partial sums of a reduction of
// up to a million terms (an average pool of values near 1e38 overflows while summing).
constexpr double kFloatLimit = double(std::numeric_limits<float>::max()) * 1e-6;

bool within_float_range(const std::vector<Tensor<double>>& tensors) {
  for (const Tensor<double>& t : tensors)
    for (double v : t.data)
      if (!(std::fabs(v) <= kFloatLimit)) return false;
  return true;
}

void check_nodes(const Graph& g, CpuGraph& graph, const std::vector<bool>& weight_only, CpuCheck& check) {
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (weight_only[id] || n.op == OpType::input) continue;
    const std::vector<Tensor<double>> inputs =
        held_inputs(g, id, [&](TensorRef t) { return graph.download(t); });
    std::vector<Tensor<double>> want = reference_outputs(n, inputs);
    // Random weights without normalization (bert's 8 layers) grow activations past
    // float's range (kFloatLimit); such an operator says nothing about the kernel: counted, not judged.
    if (!within_float_range(inputs) || !within_float_range(want)) {
      ++check.nodes_beyond_float;
      check.beyond_float.push_back(tensor_label(g, {id, 0}));
      continue;
    }
    for (int port = 0; port < n.num_outputs(); ++port) {
      const double e = relative_error(graph.download({id, port}), want[size_t(port)]);
      if (e >= check.node_error) {
        check.node_error = e;
        check.worst_node = tensor_label(g, {id, port}) + " (" + op_signature(g, id) + ")";
      }
    }
  }
}

}  // namespace

CpuCheck check_against_reference(const Graph& g, CpuGraph& graph, uint64_t seed) {
  const std::vector<bool> weight_only = weight_only_nodes(g);
  CpuCheck check;
  check_weights(g, graph, weight_only, seed, check);
  check_nodes(g, graph, weight_only, check);
  RealArith<double> ar;
  std::vector<Tensor<double>> want = evaluate(g, ar, random_sources(ar, seed));
  std::vector<Tensor<float>> got = graph.outputs();
  for (size_t i = 0; i < want.size(); ++i) {
    const double e = relative_error(got[i], want[i]);
    if (i == 0 || e > check.output_error) {
      check.output_error = e;
      check.worst_output = tensor_label(g, g.outputs()[i]);
    }
  }
  return check;
}

}  // namespace superopt::cpu
