// Graph evaluation and seeded random sources, compiled here for the modular and
// real arithmetics (the symbolic one is in symbolic_evaluator.cc).
#include "runtime/core/arith.h"
#include "runtime/core/evaluator_impl.h"

#include <utility>

#include "runtime/core/memory_budget.h"

namespace superopt {
namespace evaluator_detail {

void check_node_outputs(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  std::array<const TensorDesc*, kMaxInputs> in{};
  for (int i = 0; i < n.num_inputs; ++i) in[i] = &g.desc(n.inputs()[i]);
  std::array<TensorDesc, kMaxOutputs> out{};
  const size_t num_outputs = static_cast<size_t>(n.num_outputs());
  infer_outputs(n.op, n.params, std::span(in.data(), n.inputs().size()), std::span(out.data(), num_outputs));
  for (size_t i = 0; i < num_outputs; ++i)
    if (out[i] != n.output_array[i])
      throw Error("cannot evaluate node " + tensor_label(g, {id, 0}) + " (" + std::string(op_name(n.op)) +
                  "): its stored output (shape " + n.output_array[i].shape.str() +
                  ") is stale, its inputs give shape " + out[i].shape.str() + "; run infer_shapes()");
}

std::vector<int> count_uses(const Graph& g) {
  std::vector<int> uses(g.num_nodes(), 0);
  for (const Node& n : g.nodes())
    for (TensorRef t : n.inputs()) ++uses[t.node];
  for (TensorRef t : g.outputs()) ++uses[t.node];
  return uses;
}

void check_evaluation_memory(const Graph& g, const std::vector<NodeId>& order, int64_t value_bytes) {
  std::vector<int> uses = count_uses(g);
  std::vector<int64_t> node_bytes(g.num_nodes(), 0);
  int64_t live_bytes = 0;
  for (NodeId id : order) {
    const Node& n = g.node(id);
    for (int i = 0; i < n.num_outputs(); ++i)
      node_bytes[id] += n.output(i).shape.num_elements() * value_bytes;
    live_bytes += node_bytes[id];
    if (live_bytes > memory_budget_bytes())
      check_memory_budget(live_bytes, "evaluating " + std::string(op_name(n.op)) + " '" + n.name.str() +
                                          "' (output " + n.output(0).shape.str() + ": " +
                                          bytes_text(node_bytes[id]) + ", with the tensors live then)");
    for (TensorRef t : n.inputs())
      if (--uses[t.node] == 0) live_bytes -= std::exchange(node_bytes[t.node], 0);
    if (uses[id] == 0) live_bytes -= std::exchange(node_bytes[id], 0);
  }
}

}  // namespace evaluator_detail

void check_evaluation_memory(const Graph& g, int64_t value_bytes) {
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("cannot evaluate a graph with a cycle");
  evaluator_detail::check_evaluation_memory(g, *order, value_bytes);
}

SUPEROPT_INSTANTIATE_EVALUATOR(ModArith)
SUPEROPT_INSTANTIATE_EVALUATOR(RealArith<double>)
SUPEROPT_INSTANTIATE_EVALUATOR(RealArith<float>)

}  // namespace superopt
