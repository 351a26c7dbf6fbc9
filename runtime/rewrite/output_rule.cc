// Cones of a rule's outputs (see output_rule.h).
#include "runtime/rewrite/output_rule.h"

namespace superopt {

Graph graph_of_outputs(const Graph& g, const std::vector<int>& outputs) {
  Graph kept = g;
  std::vector<TensorRef> refs;
  for (int k : outputs) refs.push_back(g.outputs()[size_t(k)]);
  kept.set_outputs(std::move(refs));
  kept.remove_unused();
  return kept;
}

Rule output_rule(const Rule& rule, int output) {
  Rule one;
  one.source = graph_of_outputs(rule.source, {output});
  one.target = graph_of_outputs(rule.target, {output});
  one.fingerprint = rule.fingerprint;
  return one;
}

}  // namespace superopt
