// Per-node, per-weight and end-to-end checks of a CPU backend run.
#include "runtime/exec/cpu/cpu_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

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

// Infinities pass where `infinities` says so: a pad with -inf before a max pool
// is a value float holds exactly, not an overflow.
bool within_float_range(const std::vector<Tensor<double>>& tensors, bool infinities = false) {
  for (const Tensor<double>& t : tensors)
    for (double v : t.data)
      if (!(std::fabs(v) <= kFloatLimit) && !(infinities && std::isinf(v))) return false;
  return true;
}

// A tensor as the backend holds it, in double; one inside a fused convolution
// (not held) is the reference operator on its own inputs, so the fused group is
// judged at its last node as one kernel.
class HeldValues {
 public:
  HeldValues(const Graph& g, CpuGraph& graph) : g_(g), graph_(graph) {}
  Tensor<double> operator()(TensorRef t) {
    if (graph_.held(t)) {
      Tensor<float> held = graph_.download(t);
      return Tensor<double>(held.shape, std::vector<double>(held.data.begin(), held.data.end()));
    }
    const auto key = std::make_pair(t.node, t.port);
    if (auto it = values_.find(key); it != values_.end()) return it->second;
    std::vector<Tensor<double>> inputs;
    for (TensorRef in : g_.node(t.node).inputs()) inputs.push_back((*this)(in));
    return values_.emplace(key, std::move(reference_outputs(g_.node(t.node), inputs)[size_t(t.port)]))
        .first->second;
  }

 private:
  const Graph& g_;
  CpuGraph& graph_;
  std::map<std::pair<NodeId, int>, Tensor<double>> values_;  // computed ones only: a few per fused group
};

void check_nodes(const Graph& g, CpuGraph& graph, const std::vector<bool>& weight_only, CpuCheck& check) {
  HeldValues value(g, graph);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (weight_only[id] || n.op == OpType::input || !graph.held({id, 0})) continue;
    std::vector<Tensor<double>> inputs;
    for (TensorRef t : n.inputs()) inputs.push_back(value(t));
    std::vector<Tensor<double>> want = reference_outputs(n, inputs);
    // Random weights without normalization (bert's 8 layers) grow activations past
    // float's range (kFloatLimit); such an operator says nothing about the kernel: counted, not judged.
    if (!within_float_range(inputs, true) || !within_float_range(want)) {
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
