// Backtracking occurrence search: pattern nodes in their connected order, each
// candidate found through a tensor already bound, commutative inputs both ways.
#include "runtime/rewrite/matcher.h"

#include <algorithm>

#include "runtime/rewrite/size_family.h"

namespace superopt {

GraphIndex::GraphIndex(const Graph& g) : by_op_(kNumOpTypes) {
  int num_tensors = g.num_nodes() * kMaxOutputs;
  std::vector<int> count(num_tensors + 1, 0);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    by_op_[static_cast<int>(n.op)].push_back(id);
    for (TensorRef t : n.inputs()) ++count[tensor_index(t) + 1];
  }
  for (int i = 0; i < num_tensors; ++i) count[i + 1] += count[i];
  begin_ = count;
  consumers_.resize(count[num_tensors]);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    for (int slot = 0; slot < n.num_inputs; ++slot)
      consumers_[count[tensor_index(n.input_array[slot])]++] = {id, slot};
  }
  graph_output_.assign(num_tensors, 0);
  for (TensorRef t : g.outputs()) graph_output_[tensor_index(t)] = 1;
}

std::span<const std::pair<NodeId, int>> GraphIndex::consumers(TensorRef t) const {
  int i = tensor_index(t);
  return {consumers_.data() + begin_[i], size_t(begin_[i + 1] - begin_[i])};
}

bool GraphIndex::is_graph_output(TensorRef t) const {
  return graph_output_[tensor_index(t)];
}

namespace {

// Transposes compare by the permutation they perform: "unset" reverses.
bool same_perm(const OpParams& a, const OpParams& b, int rank) {
  for (int i = 0; i < rank; ++i) {
    int pa = a.perm[0] < 0 ? rank - 1 - i : a.perm[i];
    int pb = b.perm[0] < 0 ? rank - 1 - i : b.perm[i];
    if (pa != pb) return false;
  }
  return true;
}

class Matcher {
 public:
  Matcher(const Graph& g, const GraphIndex& index, const Pattern& p,
          const std::function<void(const Match&)>& visit)
      : g_(g), index_(index), p_(p), visit_(visit) {}

  void run(NodeId anchor) {
    State s;
    s.nodes.fill(-1);
    s.variables.fill(TensorRef{-1, 0});
    s.bound.fill(TensorRef{-1, 0});
    try_node(0, anchor, s);
  }

 private:
  // Fixed-size, so that trying a candidate copies without allocating.
  struct State {
    std::array<NodeId, kMaxPatternNodes> nodes;
    std::array<TensorRef, kMaxPatternNodes> variables;
    std::array<TensorRef, kMaxPatternNodes * kMaxOutputs> bound;  // pattern tensor -> graph tensor
  };

  TensorRef& bound(State& s, PatternTensor t) const {
    const PatternNode& n = p_.nodes[t.node];
    return n.kind == PatternKind::variable ? s.variables[n.variable] : s.bound[t.node * kMaxOutputs + t.port];
  }

  void extend(size_t k, State& s) {
    if (k == p_.match_order.size()) {
      if (valid(s)) {
        Match m;
        m.nodes.assign(s.nodes.begin(), s.nodes.begin() + p_.nodes.size());
        m.variables.assign(s.variables.begin(), s.variables.begin() + p_.variable_names.size());
        visit_(m);
      }
      return;
    }
    int pn = p_.match_order[k];
    const PatternNode& n = p_.nodes[pn];
    for (int port = 0; port < int(n.rule_shapes.size()); ++port) {
      TensorRef t = s.bound[pn * kMaxOutputs + port];
      if (t.node >= 0) return try_node(k, t.node, s);
    }
    for (PatternTensor in : n.inputs) {
      TensorRef t = bound(s, in);
      if (t.node < 0) continue;
      for (auto [consumer, slot] : index_.consumers(t)) try_node(k, consumer, s);
      return;
    }
  }

  bool node_fits(const PatternNode& pn, const Node& n) const {
    if (n.op != pn.op || n.num_inputs != int(pn.inputs.size())) return false;
    if (pn.kind == PatternKind::constant) return true;  // shapes are re-derived, not matched
    if (n.op == OpType::transpose) return same_perm(n.params, pn.params(), pn.rule_shapes[0].rank());
    return params_equal(n.op, n.params, pn.params());
  }

  void try_node(size_t k, NodeId id, const State& s0) {
    int pi = p_.match_order[k];
    const PatternNode& pn = p_.nodes[pi];
    const Node& n = g_.node(id);
    if (!node_fits(pn, n) || !producers_fit(pn, n) || !shapes_fit(pn.facts, g_, n) || matched(id, s0)) return;
    for (size_t port = 0; port < pn.rule_shapes.size(); ++port) {
      TensorRef t = s0.bound[pi * kMaxOutputs + port];
      if (t.node >= 0 && !(t == TensorRef{id, int(port)})) return;
    }
    bool swap_too = op_info(n.op).commutative && !(n.input_array[0] == n.input_array[1]);
    for (int swapped = 0; swapped <= int(swap_too); ++swapped) {
      State s = s0;
      s.nodes[pi] = id;
      for (size_t port = 0; port < pn.rule_shapes.size(); ++port)
        s.bound[pi * kMaxOutputs + port] = {id, int(port)};
      if (bind_inputs(pn, n, swapped, s)) extend(k + 1, s);
    }
  }

  bool bind_inputs(const PatternNode& pn, const Node& n, bool swapped, State& s) const {
    for (size_t j = 0; j < pn.inputs.size(); ++j) {
      TensorRef actual = n.input_array[swapped ? 1 - j : j];
      PatternTensor want = pn.inputs[j];
      TensorRef& b = bound(s, want);
      if (b.node >= 0) {
        if (!(b == actual)) return false;
        continue;
      }
      if (p_.nodes[want.node].rule_shapes[want.port].rank() != g_.shape(actual).rank()) return false;
      b = actual;
    }
    return true;
  }

  bool matched(NodeId id, const State& s) const {
    return std::find(s.nodes.begin(), s.nodes.begin() + p_.nodes.size(), id) !=
           s.nodes.begin() + p_.nodes.size();
  }

  // A cheap look before binding: inputs the pattern computes come from the right operators.
  bool producers_fit(const PatternNode& pn, const Node& n) const {
    auto fits = [&](bool swapped) {
      for (size_t j = 0; j < pn.inputs.size(); ++j) {
        const PatternNode& producer = p_.nodes[pn.inputs[j].node];
        if (producer.kind != PatternKind::variable &&
            g_.node(n.input_array[swapped ? 1 - j : j].node).op != producer.op)
          return false;
      }
      return true;
    };
    return fits(false) || (op_info(n.op).commutative && fits(true));
  }

  bool valid(const State& s) const {
    if (!sizes_fit_family(p_, g_, std::span(s.variables.data(), p_.variable_names.size()))) return false;
    for (size_t v = 0; v < p_.variable_names.size(); ++v)
      if (s.variables[v].node >= 0 && matched(s.variables[v].node, s)) return false;
    for (size_t pi = 0; pi < p_.nodes.size(); ++pi) {
      if (p_.nodes[pi].kind != PatternKind::op) continue;
      for (int port = 0; port < int(p_.nodes[pi].rule_shapes.size()); ++port) {
        TensorRef t{s.nodes[pi], port};
        if (p_.is_output({int(pi), port})) continue;
        if (index_.is_graph_output(t)) return false;
        for (auto [consumer, slot] : index_.consumers(t))
          if (!matched(consumer, s)) return false;
      }
    }
    return true;
  }

  const Graph& g_;
  const GraphIndex& index_;
  const Pattern& p_;
  const std::function<void(const Match&)>& visit_;
};

}  // namespace

void match_at(const Graph& g, const GraphIndex& index, const Pattern& p, NodeId anchor,
              const std::function<void(const Match&)>& visit) {
  Matcher(g, index, p, visit).run(anchor);
}

std::vector<Match> find_matches(const Graph& g, const GraphIndex& index, const Pattern& p) {
  std::vector<Match> all;
  std::function<void(const Match&)> keep = [&](const Match& m) { all.push_back(m); };
  for (NodeId id : index.nodes_of(p.anchor_op())) match_at(g, index, p, id, keep);
  return all;
}

}  // namespace superopt
