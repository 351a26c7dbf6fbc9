// A rule application's cost change costed on a window around it (see window_cost.h).
#include "search/window_cost.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "runtime/core/error.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/cost/fusion.h"

namespace superopt::search {
namespace {

// Followers the executor may fuse into a convolution or matmul: the bias and
// residual adds and an activation (fusion.h). Up to three follow one another.
constexpr int kFollowerChain = 3;

bool may_follow(OpType op) {
  return op == OpType::ewadd || fusable_activation(op);
}

bool may_lead(OpType op) {
  return op == OpType::conv2d || op == OpType::matmul || op == OpType::linear;
}

}  // namespace

WindowCost::WindowCost(const Graph& g, const std::vector<bool>& weight_only, CostModel& cost)
    : g_(g),
      weight_only_(weight_only),
      cost_(cost),
      readers_(size_t(g.num_nodes())),
      graph_output_(size_t(g.num_nodes()), 0),
      position_(size_t(g.num_nodes()), 0),
      in_(size_t(g.num_nodes()), 0),
      node_map_(size_t(g.num_nodes()), -1) {
  FusionPlan plan = plan_fusions(g, weight_only);
  group_of_ = std::move(plan.group_of);
  for (const Fusion& f : plan.groups) {
    std::vector<NodeId> nodes{f.producer};
    nodes.insert(nodes.end(), f.absorbed.begin(), f.absorbed.end());
    group_nodes_.push_back(std::move(nodes));
  }
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    for (TensorRef t : g.node(id).inputs()) readers_[size_t(t.node)].push_back(id);
  for (TensorRef t : g.outputs()) graph_output_[size_t(t.node)] = 1;
  const std::vector<NodeId> order = g.topological_order().value();
  for (size_t i = 0; i < order.size(); ++i) position_[size_t(order[i])] = int(i);
}

void WindowCost::add(NodeId id, std::vector<char>& in, std::vector<NodeId>& out) const {
  if (in[size_t(id)]) return;
  in[size_t(id)] = 1;
  out.push_back(id);
  if (const int group = group_of_[size_t(id)]; group >= 0)
    for (NodeId n : group_nodes_[size_t(group)]) add(n, in, out);
}

std::vector<NodeId> WindowCost::window(const DirectedRule& rule, const Match& m) const {
  std::vector<char>& in = in_;  // all 0 between calls
  std::vector<NodeId> out;
  std::vector<NodeId> matched;
  for (size_t i = 0; i < rule.source.nodes.size(); ++i)
    if (rule.source.nodes[i].kind == PatternKind::op) matched.push_back(m.nodes[i]);
  for (NodeId id : matched) add(id, in, out);
  for (NodeId id : matched) {
    if (weight_only_[size_t(id)]) continue;  // load-time work: fuses with nothing
    // A producer that may take a matched operator (or what replaces it) as a follower.
    for (TensorRef t : g_.node(id).inputs())
      if (!weight_only_[size_t(t.node)] && (may_lead(g_.node(t.node).op) || group_of_[size_t(t.node)] >= 0))
        add(t.node, in, out);
    // Followers that may fuse into a matched operator (or what replaces it).
    std::vector<NodeId> frontier{id};
    for (int depth = 0; depth < kFollowerChain && !frontier.empty(); ++depth) {
      std::vector<NodeId> next;
      for (NodeId from : frontier)
        for (NodeId r : readers_[size_t(from)])
          if (!weight_only_[size_t(r)] && may_follow(g_.node(r).op) && !in[size_t(r)]) {
            add(r, in, out);
            next.push_back(r);
          }
      frontier = std::move(next);
    }
  }
  for (NodeId id : out) in[size_t(id)] = 0;
  std::sort(out.begin(), out.end(),
            [&](NodeId a, NodeId b) { return position_[size_t(a)] < position_[size_t(b)]; });
  return out;
}

std::optional<double> WindowCost::delta_ms(const DirectedRule& rule, const Match& m) {
  const std::vector<NodeId> nodes = window(rule, m);
  std::vector<char>& inside = in_;
  std::vector<NodeId>& node_map = node_map_;
  for (NodeId id : nodes) inside[size_t(id)] = 1;
  // Leaves in_ and node_map_ as they were, however this returns.
  std::vector<NodeId> mapped_sources;
  struct Reset {
    std::vector<char>& inside;
    std::vector<NodeId>& node_map;
    const std::vector<NodeId>& nodes;
    const std::vector<NodeId>& sources;
    ~Reset() {
      for (NodeId id : nodes) inside[size_t(id)] = 0, node_map[size_t(id)] = -1;
      for (NodeId id : sources) node_map[size_t(id)] = -1;
    }
  } reset{inside, node_map, nodes, mapped_sources};

  // The window as a graph: tensors from outside become inputs, or weights when
  // computed from weights alone (a cost model sees them as load-time work);
  // constants stay constants (a rule may match them). No weight data: costs
  // do not depend on it.
  Graph w;
  std::unordered_map<int64_t, TensorRef> local;  // g tensor -> window tensor
  auto key = [](TensorRef t) { return int64_t(t.node) * kMaxOutputs + t.port; };
  auto tensor = [&](TensorRef t) -> TensorRef {
    if (auto it = local.find(key(t)); it != local.end()) return it->second;
    const Node& n = g_.node(t.node);
    const std::string name = "__window_" + std::to_string(local.size());
    TensorRef mapped;
    if (is_constant(n.op)) {
      mapped = {w.add(n.op, {}, n.params, name), 0};
      node_map[size_t(t.node)] = mapped.node;
      mapped_sources.push_back(t.node);
    } else if (weight_only_[size_t(t.node)]) {
      mapped = {w.add_weight(name, g_.shape(t)), 0};
    } else {
      mapped = {w.add_input(name, g_.shape(t)), 0};
    }
    local.emplace(key(t), mapped);
    return mapped;
  };
  try {
    for (NodeId id : nodes) {
      const Node& n = g_.node(id);
      std::vector<TensorRef> in;
      for (TensorRef t : n.inputs()) in.push_back(tensor(t));
      const NodeId copy = w.add(n.op, in, n.params, n.name.str());
      node_map[size_t(id)] = copy;
      for (int port = 0; port < n.num_outputs(); ++port) local[key({id, port})] = {copy, port};
    }
    // Outputs: tensors read outside the window, or graph outputs.
    for (NodeId id : nodes) {
      const Node& n = g_.node(id);
      std::vector<char> used(size_t(n.num_outputs()), 0);
      for (NodeId r : readers_[size_t(id)])
        if (!inside[size_t(r)])
          for (TensorRef t : g_.node(r).inputs())
            if (t.node == id) used[size_t(t.port)] = 1;
      if (graph_output_[size_t(id)])
        for (TensorRef t : g_.outputs())
          if (t.node == id) used[size_t(t.port)] = 1;
      for (int port = 0; port < n.num_outputs(); ++port)
        if (used[size_t(port)]) w.add_output({node_map[size_t(id)], port});
    }
    Match mw;
    for (NodeId id : m.nodes) {
      if (id >= 0 && node_map[size_t(id)] < 0) return std::nullopt;  // not in the window
      mw.nodes.push_back(id >= 0 ? node_map[size_t(id)] : NodeId(-1));
    }
    for (TensorRef t : m.variables) mw.variables.push_back(t.node >= 0 ? tensor(t) : t);

    auto cached = before_ms_.find(nodes);
    if (cached == before_ms_.end())
      cached = before_ms_.emplace(nodes, cost_.operators_sum_ms(w, weight_only_nodes(w))).first;
    const std::optional<Graph> after = apply_rule(w, mw, rule);
    if (!after) return std::nullopt;
    return cost_.operators_sum_ms(*after, weight_only_nodes(*after)) - cached->second;
  } catch (const Error&) {
    return std::nullopt;  // a window the cost model cannot run alone: cost the whole graph
  }
}

}  // namespace superopt::search
