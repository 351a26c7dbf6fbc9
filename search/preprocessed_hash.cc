// Hashing a graph with its precomputed (weight-only) subgraphs collapsed.
#include "search/preprocessed_hash.h"

#include "runtime/core/graph_analysis.h"
#include "runtime/core/hashing.h"

namespace superopt::search {

uint64_t preprocessed_hash(const Graph& g) {
  std::vector<NodeId> order = g.topological_order().value();
  std::vector<uint64_t> h(g.num_nodes()), sources(g.num_nodes(), 0);
  std::vector<bool> fixed = weight_only_nodes(g);
  std::vector<uint64_t> running;
  for (NodeId id : order) {
    const Node& n = g.node(id);
    if (n.op == OpType::weight || is_constant(n.op))
      sources[id] =
          n.op == OpType::weight ? hash_string(n.name.str(), 0x77) : params_hash(n.op, n.params, 0x78);
    else if (fixed[id])
      for (TensorRef t : n.inputs()) sources[id] += sources[t.node];  // order-free: a set of sources
    if (fixed[id]) {
      // Every output of a precomputed node: its shape and its sources.
      const Shape& s = n.output(0).shape;
      h[id] = hash_bytes(&s, sizeof s, sources[id]);
      continue;
    }
    uint64_t v = params_hash(n.op, n.params, 0x5eed);
    if (n.op == OpType::input || n.op == OpType::opaque) v = hash_string(n.name.str(), v);
    for (TensorRef t : n.inputs()) {
      uint64_t in = h[t.node];
      if (fixed[t.node]) in = hash_bytes(&g.shape(t), sizeof(Shape), sources[t.node]);
      v = hash_combine(hash_combine(v, in), fixed[t.node] ? 0 : t.port);
    }
    h[id] = v;
    running.push_back(v);
  }
  std::sort(running.begin(), running.end());
  uint64_t v = hash_bytes(running.data(), running.size() * sizeof(uint64_t), 0x9a5);
  for (TensorRef t : g.outputs()) v = hash_combine(hash_combine(v, h[t.node]), t.port);
  return v;
}

}  // namespace superopt::search
