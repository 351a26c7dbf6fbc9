// Evaluating the weight-only frontier once and replacing it by weights with data.
#include "search/fold.h"

#include "runtime/core/arith.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"

namespace superopt::search {
namespace {

// Whether every weight that t depends on has data.
bool values_known(const Graph& g, NodeId id, std::vector<char>& known, std::vector<char>& seen) {
  if (seen[id]) return known[id];
  seen[id] = 1;
  const Node& n = g.node(id);
  bool ok = n.op != OpType::weight || g.weight_data(id) != nullptr;
  for (TensorRef t : n.inputs()) ok = values_known(g, t.node, known, seen) && ok;
  known[id] = ok;
  return ok;
}

// A weight carries no split trees: a concatenation of weights that a later split
// undoes (or whose trees reach the consumers' descriptors) stays an operator, or
// the consumers' stored shapes would go stale and the split would lose its point.
bool has_split_trees(const TensorDesc& d) {
  for (int i = 0; i < d.shape.rank(); ++i)
    if (!d.split(i).empty()) return true;
  return false;
}

std::string fresh_name(const Graph& g, int& counter) {
  for (;;) {
    std::string name = std::string("folded_").append(std::to_string(counter++));
    if (!g.find(name)) return name;
  }
}

}  // namespace

Folded fold_precomputed(const Graph& g) {
  std::vector<bool> fixed = weight_only_nodes(g);
  std::vector<char> known(g.num_nodes(), 0), seen(g.num_nodes(), 0);
  // Precomputed operator outputs (not raw weights) read by running operators or
  // the caller, whose values are known now.
  std::vector<TensorRef> frontier;
  for (TensorRef t : weight_only_frontier(g, fixed))
    if (g.node(t.node).num_inputs > 0 && values_known(g, t.node, known, seen) && !has_split_trees(g.desc(t)))
      frontier.push_back(t);
  Folded out{g, 0, 0};
  if (frontier.empty()) return out;

  Graph values = g;
  values.set_outputs(frontier);
  values.remove_unused();
  RealArith<double> ar;
  auto results = evaluate(values, ar, random_sources(ar, 0));
  int counter = 0;
  int before = g.num_operators();
  for (size_t k = 0; k < frontier.size(); ++k) {
    std::vector<float> data(results[k].data.begin(), results[k].data.end());
    NodeId w = out.graph.add_weight(fresh_name(out.graph, counter), g.shape(frontier[k]), std::move(data));
    out.graph.replace_uses(frontier[k], {w, 0});
  }
  out.graph.remove_unused();
  out.weights = int(frontier.size());
  out.operators = before - out.graph.num_operators();
  return out;
}

}  // namespace superopt::search
