// Operator signatures and graph costs with the memory limit.
#include "runtime/cost/cost_model.h"

#include "runtime/core/graph_analysis.h"

namespace superopt {

std::string op_signature(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  std::string s(op_name(n.op));
  s.append("|").append(params_str(n.op, n.params)).append("|");
  for (size_t i = 0; i < n.inputs().size(); ++i) {
    if (i) s += ',';
    s += g.shape(n.inputs()[i]).str();
  }
  // A split's parts follow its input's concat points, which no shape says: two
  // splits of one shape at different points are different kernels and costs.
  if (n.op == OpType::split)
    for (int port = 0; port < n.num_outputs(); ++port)
      s.append(port ? "," : ">").append(n.output(port).shape.str());
  return s + "|row";
}

double graph_cost_ms(const Graph& g, CostModel& model) {
  if (model.memory_limit_bytes() < std::numeric_limits<int64_t>::max() &&
      peak_activation_bytes(g) > model.memory_limit_bytes())
    return std::numeric_limits<double>::infinity();
  return model.graph_sum_ms(g, weight_only_nodes(g));
}

double CostModel::graph_sum_ms(const Graph& g, const std::vector<bool>& weight_only) {
  double total_ms = 0;
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (!weight_only[id]) total_ms += node_cost_ms(g, id);
  return total_ms;
}

std::vector<CostUnit> CostModel::graph_units(const Graph& g, const std::vector<bool>& weight_only) {
  std::vector<CostUnit> units;
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (!weight_only[id] && !runs_no_kernel(g, id))
      units.push_back({op_signature(g, id), node_spread_ms(g, id)});
  return units;
}

}  // namespace superopt
