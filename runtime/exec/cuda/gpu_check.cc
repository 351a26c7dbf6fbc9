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
#include "runtime/exec/reference_check.h"
#include "runtime/exec/weight_folding.h"

namespace superopt::cuda {

NodeCheck check_each_node(const Graph& g, GpuGraph& gpu, uint64_t seed) {
  const std::vector<bool> weight_only = weight_only_nodes(g);
  NodeCheck check;
  // The same weights, to the same values, as the executor folded (weight_folding.h).
  const FoldedWeights folded = fold_weights(g, weight_only, seed);
  for (size_t i = 0; i < folded.tensors.size(); ++i) {
    double e = relative_error(gpu.download(folded.tensors[i]), folded.values[i]);
    if (e >= check.worst_weight_error)
      check = {check.worst_node_error, check.worst_node, e, tensor_label(g, folded.tensors[i])};
  }
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (weight_only[id] || n.op == OpType::input) continue;
    const std::vector<Tensor<double>> inputs =
        held_inputs(g, id, [&](TensorRef t) { return gpu.download(t); });
    std::vector<Tensor<double>> want = reference_outputs(n, inputs);
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
