// Weight-only nodes and their frontier, kernel-free operators, peak activation memory.
#include "runtime/core/graph_analysis.h"

#include <algorithm>
#include <optional>

#include "runtime/core/error.h"

namespace superopt {

std::vector<bool> weight_only_nodes(const Graph& g) {
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  std::vector<bool> weight_only(g.num_nodes(), false);
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    if (n.op == OpType::weight || is_constant(n.op)) {
      weight_only[id] = true;
    } else if (n.num_inputs > 0) {
      weight_only[id] =
          std::all_of(n.inputs().begin(), n.inputs().end(), [&](TensorRef t) { return weight_only[t.node]; });
    }
  }
  return weight_only;
}

std::vector<TensorRef> weight_only_frontier(const Graph& g, const std::vector<bool>& weight_only) {
  std::vector<TensorRef> frontier;
  auto add = [&](TensorRef t) {
    if (weight_only[t.node] && std::find(frontier.begin(), frontier.end(), t) == frontier.end())
      frontier.push_back(t);
  };
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (!weight_only[id])
      for (TensorRef t : g.node(id).inputs()) add(t);
  for (TensorRef t : g.outputs()) add(t);
  return frontier;
}

bool runs_no_kernel(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  if (op_info(n.op).is_source()) return true;
  // is_view reads the first input; operators that are never views may have none (opaque).
  return op_info(n.op).view != View::never && is_view(n.op, n.params, g.shape(n.inputs()[0]));
}

int64_t peak_activation_bytes(const Graph& g) {
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  std::vector<bool> weight_only = weight_only_nodes(g);
  const int n = g.num_nodes();
  std::vector<int> position(n), last_use(n, -1);
  for (int i = 0; i < n; ++i) position[(*order)[i]] = i;
  for (NodeId id = 0; id < n; ++id)
    for (TensorRef t : g.node(id).inputs()) last_use[t.node] = std::max(last_use[t.node], position[id]);
  for (TensorRef t : g.outputs()) last_use[t.node] = n;  // kept to the end
  std::vector<std::vector<NodeId>> freed_after(n);
  for (NodeId id = 0; id < n; ++id)
    if (!weight_only[id] && last_use[id] < n) freed_after[std::max(last_use[id], position[id])].push_back(id);
  auto bytes = [&](NodeId id) {
    int64_t b = 0;
    for (int port = 0; port < g.node(id).num_outputs(); ++port)
      b += g.shape({id, port}).num_elements() * kBytesPerElement;
    return b;
  };
  int64_t live = 0, peak = 0;
  for (int i = 0; i < n; ++i) {
    NodeId id = (*order)[i];
    if (!weight_only[id]) live += bytes(id);
    peak = std::max(peak, live);
    for (NodeId done : freed_after[i]) live -= bytes(done);
  }
  return peak;
}

}  // namespace superopt
