// What the search tests share: a launch-dominated cost model (MetaFlow's
// Figure 1 setting) and the search options they run with.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/cost/cost_model.h"
#include "search/search.h"

namespace superopt::test {

// A launch overhead per kernel plus FLOPs at 1 TFLOP/s; split is a view (free).
// Small tensors make launches dominate, as in MetaFlow's Figure 1.
class LaunchCost : public CostModel {
 public:
  double node_cost_ms(const Graph& g, NodeId id) override {
    const Node& n = g.node(id);
    if (n.op == OpType::input || n.op == OpType::weight || is_constant(n.op) || n.op == OpType::split)
      return 0;
    std::vector<const TensorDesc*> in;
    for (TensorRef t : n.inputs()) in.push_back(&g.desc(t));
    OpCost c = op_cost(n.op, n.params, in, std::span(n.output_array.data(), size_t(n.num_outputs())));
    return 0.01 + double(c.flops) / 1e9;
  }
  std::string name() const override { return "test:launch"; }
};

inline SearchOptions options(double alpha, int split_threshold = 0) {
  SearchOptions o;
  o.alpha = alpha;
  o.budget = 200;
  o.time_limit_s = 30;
  o.split_threshold = split_threshold;
  return o;
}

}  // namespace superopt::test
