// Derivations along a fingerprint class (see class_paths.h).
#include "verify/class_paths.h"

#include <unordered_set>

#include "runtime/core/graph_hash.h"
#include "runtime/core/hashing.h"
#include "runtime/core/operator_registry.h"
#include "runtime/rewrite/derivation.h"

namespace superopt::verify {
namespace {

bool is_leaf(OpType op) {
  return op == OpType::input || op == OpType::weight;
}

// Whether the occurrence covers every operator of g: the rule rewrites the
// whole graph, from one member of the class to another.
bool covers_whole_graph(const Graph& g, const Match& m) {
  std::vector<char> covered(g.num_nodes(), 0);
  for (NodeId n : m.nodes)
    if (n >= 0) covered[n] = 1;
  for (NodeId n = 0; n < g.num_nodes(); ++n) {
    const OpType op = g.node(n).op;
    if (!covered[n] && !is_leaf(op) && !is_constant(op)) return false;
  }
  return true;
}

// A graph reached from the rule's source, with the steps that reached it.
struct Reached {
  Graph graph;
  Derivation steps;
};

// The graphs reached so far, de-duplicated by structure (names included).
class ReachedGraphs {
 public:
  explicit ReachedGraphs(const Graph& start) { add({start, {}}); }
  size_t size() const { return reached_.size(); }
  const Reached& operator[](size_t i) const { return reached_[i]; }
  void add(Reached r) {
    const uint64_t h = canonical_hash(r.graph);
    auto [lo, hi] = by_hash_.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (structurally_equal(reached_[it->second].graph, r.graph)) return;
    by_hash_.emplace(h, reached_.size());
    reached_.push_back(std::move(r));
  }

 private:
  std::vector<Reached> reached_;
  std::unordered_multimap<uint64_t, size_t> by_hash_;
};

}  // namespace

uint64_t renaming_free_key(const Graph& g) {
  std::vector<uint64_t> h(g.num_nodes());
  const std::optional<std::vector<NodeId>> order = g.topological_order();  // a rule side: acyclic
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    if (is_leaf(n.op)) {
      h[id] = 0x1eaf;
      continue;
    }
    uint64_t v = params_hash(n.op, n.params, 0x5eed);
    for (TensorRef t : n.inputs()) v = hash_combine(hash_combine(v, h[t.node]), t.port);
    h[id] = v;
  }
  uint64_t key = 0xc1a55;
  for (TensorRef t : g.outputs()) key = hash_combine(hash_combine(key, h[t.node]), t.port);
  return key;
}

void ClassPaths::add(uint64_t fingerprint, Keys keys, const RuleIndex& index, int first) {
  std::vector<Edge>& edges = by_class_[fingerprint];
  for (int p = first; p < int(index.rules.size()); ++p)
    edges.push_back({p, index.rules[p].reversed ? keys.target : keys.source,
                     index.rules[p].reversed ? keys.source : keys.target});
}

bool ClassPaths::connected(const std::vector<Edge>& edges, uint64_t from, uint64_t to, int first_n) const {
  // Adjacency first: a class of hand-made rules (fingerprint 0) may be large.
  std::unordered_map<uint64_t, std::vector<uint64_t>> next;
  for (const Edge& e : edges) {
    if (first_n >= 0 && e.position >= first_n) break;  // edges are in index order
    next[e.from].push_back(e.to);
  }
  std::unordered_set<uint64_t> seen{from};
  std::vector<uint64_t> todo{from};
  while (!todo.empty()) {
    const uint64_t at = todo.back();
    todo.pop_back();
    if (at == to) return true;
    auto it = next.find(at);
    if (it == next.end()) continue;
    for (uint64_t k : it->second)
      if (seen.insert(k).second) todo.push_back(k);
  }
  return false;
}

std::optional<Derivation> ClassPaths::find(const Rule& rule, const RuleIndex& index, int max_steps,
                                           int max_graphs, int first_n) const {
  auto cls = by_class_.find(rule.fingerprint);
  if (cls == by_class_.end() || max_steps <= 0) return std::nullopt;
  const std::vector<Edge>& edges = cls->second;
  if (!connected(edges, renaming_free_key(rule.source), renaming_free_key(rule.target), first_n))
    return std::nullopt;
  ReachedGraphs reached(rule.source);
  std::optional<Derivation> found;
  size_t level_begin = 0;
  for (int step = 0; step < max_steps && level_begin < reached.size(); ++step) {
    const size_t level_end = reached.size();
    for (size_t i = level_begin; i < level_end; ++i) {
      const Graph g = reached[i].graph;  // copied: add() may move what reached holds
      const Derivation path = reached[i].steps;
      const uint64_t key = renaming_free_key(g);
      const GraphIndex graph_index(g);
      for (const Edge& e : edges) {
        if (first_n >= 0 && e.position >= first_n) break;
        if (e.from != key) continue;
        const DirectedRule& d = index.rules[e.position];
        const OpType anchor_op = d.source.nodes[d.source.match_order.front()].op;
        for (NodeId anchor = 0; anchor < g.num_nodes() && !found; ++anchor) {
          if (g.node(anchor).op != anchor_op) continue;
          match_at(g, graph_index, d.source, anchor, [&](const Match& m) {
            if (found || !covers_whole_graph(g, m)) return;
            std::optional<Graph> next = apply_rule(g, m, d);
            if (!next) return;
            Derivation steps = path;
            steps.push_back({d.rule, d.reversed, false, {}, {}});
            record_site(m, steps.back());
            if (same_outputs(*next, rule.target))
              found = std::move(steps);
            else if (int(reached.size()) < max_graphs)
              reached.add({std::move(*next), std::move(steps)});
          });
        }
        if (found) return found;
      }
    }
    level_begin = level_end;
  }
  return std::nullopt;
}

}  // namespace superopt::verify
