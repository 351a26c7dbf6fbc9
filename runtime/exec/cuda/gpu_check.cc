// Per-node checks of a GPU run against the reference kernels in double.
#include "runtime/exec/cuda/gpu_check.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/core/arith.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/core/kernels.h"
#include "runtime/cost/cost_model.h"

namespace superopt::cuda {
namespace {

Tensor<double> to_double(const Tensor<float>& t) {
  return Tensor<double>(t.shape, std::vector<double>(t.data.begin(), t.data.end()));
}

// The reference values of the weight-only tensors that GPU operators read.
std::vector<std::pair<TensorRef, Tensor<double>>> reference_weights(const Graph& g,
                                                                    const std::vector<bool>& weight_only,
                                                                    uint64_t seed) {
  std::vector<TensorRef> refs;
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (!weight_only[id])
      for (TensorRef t : g.node(id).inputs())
        if (weight_only[t.node] && std::find(refs.begin(), refs.end(), t) == refs.end()) refs.push_back(t);
  std::vector<std::pair<TensorRef, Tensor<double>>> result;
  if (refs.empty()) return result;
  Graph sub = g;
  sub.set_outputs(refs);
  sub.remove_unused();
  RealArith<double> ar;
  std::vector<Tensor<double>> values = evaluate(sub, ar, random_sources(ar, seed));
  for (size_t i = 0; i < refs.size(); ++i) result.emplace_back(refs[i], std::move(values[i]));
  return result;
}

}  // namespace

double relative_error(const Tensor<float>& got, const Tensor<double>& want) {
  if (got.shape != want.shape) return std::numeric_limits<double>::infinity();
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(want[i]) || !std::isfinite(got[i])) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

NodeCheck check_each_node(const Graph& g, GpuGraph& gpu, uint64_t seed) {
  const std::vector<bool> weight_only = weight_only_nodes(g);
  NodeCheck check;
  for (const auto& [ref, want] : reference_weights(g, weight_only, seed)) {
    double e = relative_error(gpu.download(ref), want);
    if (e >= check.worst_weight_error)
      check = {check.worst_node_error, check.worst_node, e, tensor_label(g, ref)};
  }
  RealArith<double> ar;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (weight_only[id] || n.op == OpType::input) continue;
    std::vector<Tensor<double>> inputs;
    for (TensorRef t : n.inputs()) inputs.push_back(to_double(gpu.download(t)));
    std::vector<const Tensor<double>*> ptrs;
    for (const Tensor<double>& t : inputs) ptrs.push_back(&t);
    std::vector<Tensor<double>> want =
        run_op(ar, n.op, n.params, std::span<const Tensor<double>* const>(ptrs),
               std::span<const TensorDesc>(n.output_array.data(), size_t(n.num_outputs())));
    for (int port = 0; port < n.num_outputs(); ++port) {
      double e = relative_error(gpu.download({id, port}), want[port]);
      if (e >= check.worst_node_error) {
        check.worst_node_error = e;
        check.worst_node = tensor_label(g, {id, port}) + " (" + op_signature(g, id) + ")";
      }
    }
  }
  return check;
}

}  // namespace superopt::cuda
