// How many nodes of one operator a graph has: what the search and e-graph
// tests assert about a rewritten graph.
#pragma once

#include "runtime/core/graph.h"

namespace superopt::test {

inline int count_ops(const Graph& g, OpType op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

}  // namespace superopt::test
