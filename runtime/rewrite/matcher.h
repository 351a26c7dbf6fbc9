// Finding occurrences of a compiled rule side in a graph: operator types,
// parameters, input identities, the rule's ranks and group kinds, and mapped
// outputs (an intermediate used outside the occurrence must be a rule output).
#pragma once

#include <functional>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/rewrite/pattern.h"

namespace superopt {

// What matching needs to know about a graph beyond its nodes; built once per graph.
class GraphIndex {
 public:
  explicit GraphIndex(const Graph& g);

  const std::vector<NodeId>& nodes_of(OpType op) const { return by_op_[static_cast<int>(op)]; }
  // The (node, input slot) pairs reading tensor t.
  std::span<const std::pair<NodeId, int>> consumers(TensorRef t) const;
  bool is_graph_output(TensorRef t) const;

 private:
  static int tensor_index(TensorRef t) { return t.node * kMaxOutputs + t.port; }
  std::vector<std::vector<NodeId>> by_op_;
  std::vector<int> begin_;  // per tensor, into consumers_ (CSR)
  std::vector<std::pair<NodeId, int>> consumers_;
  std::vector<char> graph_output_;
};

// One occurrence: the graph node of every pattern node (-1 for variables) and
// the tensor every variable stands for.
struct Match {
  std::vector<NodeId> nodes;
  std::vector<TensorRef> variables;

  TensorRef tensor(const Pattern& p, PatternTensor t) const {
    const PatternNode& n = p.nodes[t.node];
    return n.kind == PatternKind::variable ? variables[n.variable] : TensorRef{nodes[t.node], t.port};
  }
};

// Calls visit for every occurrence of p whose anchor is graph node `anchor`.
// p must be matchable (unmatchable_reason(p) is nullopt).
void match_at(const Graph& g, const GraphIndex& index, const Pattern& p, NodeId anchor,
              const std::function<void(const Match&)>& visit);

// Every occurrence of p in g.
std::vector<Match> find_matches(const Graph& g, const GraphIndex& index, const Pattern& p);

}  // namespace superopt
