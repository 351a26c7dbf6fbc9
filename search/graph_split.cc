// Capacities from rule occurrences and the recursive minimum-vertex-cut split.
#include "search/graph_split.h"

#include <algorithm>
#include <limits>

// Boost's max-flow trips GCC 12's -Wmaybe-uninitialized inside its own
// iterators. GCC only: clang has no such warning, and warns of the unknown name.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>

namespace superopt::search {
namespace {

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS,
    boost::property<boost::vertex_index_t, long,
                    boost::property<boost::vertex_color_t, boost::default_color_type,
                                    boost::property<boost::vertex_distance_t, long,
                                                    boost::property<boost::vertex_predecessor_t,
                                                                    Traits::edge_descriptor>>>>,
    boost::property<boost::edge_capacity_t, int64_t,
                    boost::property<boost::edge_residual_capacity_t, int64_t,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

constexpr int64_t kInfinite = int64_t(1) << 50;

class FlowNetwork {
 public:
  explicit FlowNetwork(int vertices) : g_(vertices) {}

  void arc(int u, int v, int64_t capacity) {
    auto e = boost::add_edge(u, v, g_).first, r = boost::add_edge(v, u, g_).first;
    boost::put(boost::edge_capacity, g_, e, capacity);
    boost::put(boost::edge_capacity, g_, r, 0);
    boost::put(boost::edge_reverse, g_, e, r);
    boost::put(boost::edge_reverse, g_, r, e);
  }

  // Vertices on the source side of a minimum s-t cut.
  std::vector<char> source_side(int s, int t) {
    boost::boykov_kolmogorov_max_flow(g_, s, t);
    std::vector<char> reached(boost::num_vertices(g_), 0);
    std::vector<int> stack{s};
    reached[s] = 1;
    auto residual = boost::get(boost::edge_residual_capacity, g_);
    while (!stack.empty()) {
      int u = stack.back();
      stack.pop_back();
      for (auto [e, end] = boost::out_edges(u, g_); e != end; ++e) {
        int v = int(boost::target(*e, g_));
        if (!reached[v] && residual[*e] > 0) {
          reached[v] = 1;
          stack.push_back(v);
        }
      }
    }
    return reached;
  }

 private:
  FlowGraph g_;
};

// Splits `part` (operators in topological order) in two: an ancestor-closed
// first half ending at a minimum-capacity frontier, and the rest. The cut is
// kept within the middle third so that halves shrink.
std::pair<std::vector<NodeId>, std::vector<NodeId>> bisect(const Graph& g, const std::vector<NodeId>& part,
                                                           const std::vector<int64_t>& capacity) {
  int n = int(part.size());
  std::vector<int> local(g.num_nodes(), -1);
  for (int i = 0; i < n; ++i) local[part[i]] = i;
  // Vertex i: 2i (in) and 2i+1 (out); then the source and the sink.
  int s = 2 * n, t = 2 * n + 1, lo = n / 3, hi = n - n / 3;
  FlowNetwork net(2 * n + 2);
  for (int i = 0; i < n; ++i) {
    // Prefer few occurrences cut, then few tensors crossing.
    net.arc(2 * i, 2 * i + 1, capacity[part[i]] * (n + 1) + 1);
    for (TensorRef in : g.node(part[i]).inputs()) {
      int j = local[in.node];
      if (j < 0) continue;
      net.arc(2 * j + 1, 2 * i, kInfinite);  // data flows forward
      net.arc(2 * i, 2 * j, kInfinite);      // the first half is closed under producers
    }
    if (i < lo) net.arc(s, 2 * i, kInfinite);
    if (i >= hi) net.arc(2 * i + 1, t, kInfinite);
  }
  std::vector<char> side = net.source_side(s, t);
  std::vector<NodeId> first, second;
  for (int i = 0; i < n; ++i) (side[2 * i] ? first : second).push_back(part[i]);
  if (first.empty() || second.empty()) {
    // No balanced cut: a topological prefix is ancestor-closed too.
    first.assign(part.begin(), part.begin() + n / 2);
    second.assign(part.begin() + n / 2, part.end());
  }
  return {first, second};
}

void split_into(const Graph& g, const std::vector<NodeId>& part, const std::vector<int64_t>& capacity,
                int threshold, std::vector<std::vector<NodeId>>& parts) {
  if (int(part.size()) <= threshold) {
    parts.push_back(part);
    return;
  }
  auto [first, second] = bisect(g, part, capacity);
  split_into(g, first, capacity, threshold, parts);
  split_into(g, second, capacity, threshold, parts);
}

}  // namespace

std::vector<int64_t> occurrence_capacity(const Graph& g, const RuleIndex& rules) {
  std::vector<int64_t> capacity(g.num_nodes(), 0);
  std::vector<int> readers(g.num_nodes(), 0);  // per producer: the occurrence's operators reading it
  std::vector<char> inside(g.num_nodes(), 0);
  std::vector<NodeId> touched;
  for_each_occurrence(g, rules, [&](const DirectedRule& rule, const Match& m) {
    for (size_t i = 0; i < rule.source.nodes.size(); ++i) {
      if (rule.source.nodes[i].kind != PatternKind::op) continue;
      inside[m.nodes[i]] = 1;
      for (TensorRef t : g.node(m.nodes[i]).inputs()) {
        if (readers[t.node]++ == 0) touched.push_back(t.node);
      }
    }
    // Cutting after v separates the occurrence when v is in it and feeds it
    // (MetaFlow: an in-edge and an out-edge of the occurrence), or when v
    // feeds two of its operators from outside (matmuls sharing an input).
    for (NodeId v : touched)
      if (readers[v] >= (inside[v] ? 1 : 2)) ++capacity[v];
    for (NodeId v : touched) readers[v] = 0;
    for (size_t i = 0; i < rule.source.nodes.size(); ++i)
      if (rule.source.nodes[i].kind == PatternKind::op) inside[m.nodes[i]] = 0;
    touched.clear();
  });
  return capacity;
}

std::vector<std::vector<NodeId>> split_graph(const Graph& g, const std::vector<int64_t>& capacity,
                                             int threshold) {
  std::vector<NodeId> operators;
  std::vector<NodeId> order = g.topological_order().value();
  for (NodeId id : order)
    if (is_operator(g.node(id).op)) operators.push_back(id);
  std::vector<std::vector<NodeId>> parts;
  if (!operators.empty()) split_into(g, operators, capacity, std::max(threshold, 1), parts);
  return parts;
}

}  // namespace superopt::search

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
