// The cost change of one rule application, costed on a window of the graph
// around it, for a cost model that costs a graph whole (CostModel::
// costs_whole_graphs: the CPU executor's fused groups and reorders). Adding
// the operators' costs alone misjudges a rewrite that changes what fuses (a
// convolution whose new follower is a relu outside the match), and costing the
// target alone adds reorders at its boundary that the matched operators, costed
// alone, never paid. The window is the matched operators with their fusion
// groups and the neighbours that may fuse with them (a convolution or matmul
// producing a matched operator's input; the bias adds, residual adds and
// activations reading their outputs); it is cut out as a graph of its own and
// costed before and after the rule is applied to it with operators_sum_ms
// (fused groups, not the reorders: the window's boundary formats are not the
// graph's, and costing them would only measure reorders that never run).
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/cost/cost_model.h"
#include "runtime/rewrite/rewrite.h"

namespace superopt::search {

class WindowCost {
 public:
  // `g` and `weight_only` (weight_only_nodes(g)) must outlive this.
  WindowCost(const Graph& g, const std::vector<bool>& weight_only, CostModel& cost);

  // operators_sum_ms after applying `rule` at `m` minus before, on the window;
  // nullopt when the rule does not apply on the window (then it would not on g).
  std::optional<double> delta_ms(const DirectedRule& rule, const Match& m);

  // The window's nodes for an application (sorted by g's topological order).
  std::vector<NodeId> window(const DirectedRule& rule, const Match& m) const;

 private:
  void add(NodeId id, std::vector<char>& in, std::vector<NodeId>& out) const;

  const Graph& g_;
  const std::vector<bool>& weight_only_;
  CostModel& cost_;
  std::vector<int> group_of_;                        // fusion group per node, or -1
  std::vector<std::vector<NodeId>> group_nodes_;     // each group's producer and followers
  std::vector<std::vector<NodeId>> readers_;         // per node: the nodes reading its outputs
  std::vector<char> graph_output_;                   // per node: one of its outputs is a graph output
  std::vector<int> position_;                        // per node: its place in a topological order
  std::map<std::vector<NodeId>, double> before_ms_;  // windows already costed as they are in g
  // Per node of g, reset after each use (an application touches a few nodes,
  // the graph has hundreds): in the window, and its copy in the window graph.
  mutable std::vector<char> in_;
  std::vector<NodeId> node_map_;
};

}  // namespace superopt::search
