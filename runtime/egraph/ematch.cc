// Backtracking e-matching in a plan's order (ematch_plan.h): each later node is
// found in a class already bound (as a producer) or among the parents of one
// (as a consumer), commutative inputs both ways. When the plan's order is not
// the pattern's, an anchor's occurrences are collected with the position the
// pattern's order would have found them at, and visited sorted by it.
#include "runtime/egraph/ematch.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <span>

namespace superopt::egraph {
namespace {

constexpr ClassId kUnbound = -1;
constexpr ClassId kAbsent = -2;  // an output of a tuple nobody reads: no class

class EMatcher {
 public:
  EMatcher(const EGraph& eg, const EMatchPlan& plan, const Pattern& p,
           const std::function<void(const EMatch&)>& visit, int64_t* candidates)
      : eg_(eg), plan_(plan), p_(p), visit_(visit), candidates_(candidates) {}

  void run(NodeIndex anchor) {
    State s;
    s.nodes.fill(-1);
    s.variables.fill(kUnbound);
    s.bound.fill(kUnbound);
    s.swapped.fill(0);
    try_node(0, anchor, s);
    if (found_.empty()) return;
    // The pattern's order's visiting order: its positions, level by level.
    std::vector<size_t> by_position(found_.size());
    std::iota(by_position.begin(), by_position.end(), size_t(0));
    const size_t levels = plan_.replay.size();
    std::sort(by_position.begin(), by_position.end(), [&](size_t a, size_t b) {
      return std::lexicographical_compare(found_[a].first.begin(), found_[a].first.begin() + levels,
                                          found_[b].first.begin(), found_[b].first.begin() + levels);
    });
    for (size_t i : by_position) visit_(found_[i].second);
  }

 private:
  // Fixed-size, so that trying a candidate copies without allocating (as the graph matcher's).
  struct State {
    std::array<NodeIndex, kMaxPatternNodes> nodes;
    std::array<ClassId, kMaxPatternNodes> variables;
    std::array<ClassId, kMaxPatternNodes * kMaxOutputs> bound;  // pattern tensor -> class
    std::array<int8_t, kMaxPatternNodes> swapped;               // commutative inputs taken swapped
  };
  // Per level of Pattern::match_order: where that order finds the node and
  // whether it swaps its inputs (ascending: the order it visits occurrences in).
  using Position = std::array<uint64_t, kMaxPatternNodes>;

  // Copies the entries the pattern uses: patterns have a few of the
  // kMaxPatternNodes nodes, the rest of a state is never read, and whole-state
  // copies were a tenth of try_node's profile samples (alexnet).
  void copy_used(State& to, const State& from) const {
    const size_t n = p_.nodes.size(), v = p_.variable_names.size();
    std::copy_n(from.nodes.begin(), n, to.nodes.begin());
    std::copy_n(from.variables.begin(), v, to.variables.begin());
    std::copy_n(from.bound.begin(), n * kMaxOutputs, to.bound.begin());
    std::copy_n(from.swapped.begin(), n, to.swapped.begin());
  }

  ClassId& bound(State& s, PatternTensor t) const {
    const PatternNode& n = p_.nodes[t.node];
    return n.kind == PatternKind::variable ? s.variables[n.variable] : s.bound[t.node * kMaxOutputs + t.port];
  }

  // Calls f for each e-node of pn's operator producing class c's tensor at `port`.
  template <class F>
  void producers_in(ClassId c, const PatternNode& pn, int port, F&& f) const {
    for (NodeIndex n : eg_.eclass(c).nodes) {
      if (pn.rule_shapes.size() == 1) {
        if (!eg_.is_projection(n) && eg_.op_of(n) == pn.op) f(n);
      } else if (eg_.port_of(n) == port) {
        for (NodeIndex t : eg_.eclass(eg_.node(n).children[0]).nodes)
          if (eg_.op_of(t) == pn.op && !eg_.is_projection(t)) f(t);
      }
    }
  }

  // Calls f for each candidate e-node of pattern node pn_index: found through
  // a bound output (its producers) or a bound input (its class's parents).
  template <class F>
  void for_candidates(int pn_index, const State& s, F&& f) const {
    const PatternNode& pn = p_.nodes[pn_index];
    for (int port = 0; port < int(pn.rule_shapes.size()); ++port) {
      const ClassId c = s.bound[pn_index * kMaxOutputs + port];
      if (c == kAbsent) return;
      if (c >= 0) return producers_in(c, pn, port, f);
    }
    // Through the bound input whose class has the fewest parents: every
    // candidate is a parent of each, and each list is visited in ascending order.
    const std::vector<NodeIndex>* fewest = nullptr;
    for (PatternTensor in : pn.inputs) {
      const ClassId c = bound_of(s, in);
      if (c < 0) continue;
      const std::vector<NodeIndex>& parents = eg_.eclass(c).parents;
      if (!fewest || parents.size() < fewest->size()) fewest = &parents;
    }
    if (fewest) {
      // A class's parents may repeat (one per child slot): visited in
      // ascending order, once each. After a rebuild (every iteration's
      // matching) they are listed in that order already, so no copy is sorted.
      const std::vector<NodeIndex>& all = *fewest;
      auto wanted = [&](NodeIndex n) { return eg_.op_of(n) == pn.op && !eg_.is_projection(n); };
      if (std::is_sorted(all.begin(), all.end())) {
        for (size_t i = 0; i < all.size(); ++i)
          if ((i == 0 || all[i] != all[i - 1]) && wanted(all[i])) f(all[i]);
        return;
      }
      std::vector<NodeIndex> parents;
      for (NodeIndex n : all)
        if (wanted(n)) parents.push_back(n);
      std::sort(parents.begin(), parents.end());
      parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
      for (NodeIndex n : parents) f(n);
      return;
    }
    for (NodeIndex n : eg_.nodes_of(pn.op)) f(n);  // not connected: the matcher's order avoids this
  }

  ClassId bound_of(const State& s, PatternTensor t) const {
    const PatternNode& n = p_.nodes[t.node];
    return n.kind == PatternKind::variable ? s.variables[n.variable] : s.bound[t.node * kMaxOutputs + t.port];
  }

  void extend(size_t k, State& s) {
    if (k == plan_.order.size()) {
      if (valid(s)) {
        EMatch m;
        m.nodes.assign(s.nodes.begin(), s.nodes.begin() + p_.nodes.size());
        m.variables.assign(s.variables.begin(), s.variables.begin() + p_.variable_names.size());
        if (plan_.reordered)
          found_.emplace_back(position(s), std::move(m));
        else
          visit_(m);
      }
      return;
    }
    for_candidates(plan_.order[k], s, [&](NodeIndex n) {
      if (candidates_) ++*candidates_;
      try_node(k, n, s);
    });
  }

  // Where Pattern::match_order's matcher finds the occurrence s: per level, the
  // candidate's place in the list it scans there (a class's e-nodes in their
  // order; parents and operator lists ascending, so by index), then the swap.
  Position position(const State& s) const {
    Position key{};
    for (size_t k = 0; k < plan_.replay.size(); ++k) {
      const EMatchPlan::Step& step = plan_.replay[k];
      const NodeIndex n = s.nodes[step.node];
      uint64_t place = uint64_t(n), inner = 0;
      if (step.access == EMatchPlan::Access::producer) {
        const ClassId c = s.bound[step.node * kMaxOutputs + step.port];
        const std::vector<NodeIndex>& members = eg_.eclass(c).nodes;
        if (p_.nodes[step.node].rule_shapes.size() == 1) {
          place = uint64_t(std::find(members.begin(), members.end(), n) - members.begin());
        } else {  // the projection of n's tuple class at that port, then n among the tuple's e-nodes
          const ClassId tuple = eg_.class_of(n);
          for (size_t i = 0; i < members.size(); ++i)
            if (eg_.port_of(members[i]) == step.port && eg_.find(eg_.node(members[i]).children[0]) == tuple) {
              place = i;
              break;
            }
          const std::vector<NodeIndex>& tuples = eg_.eclass(tuple).nodes;
          inner = uint64_t(std::find(tuples.begin(), tuples.end(), n) - tuples.begin());
        }
      }
      key[k] = (place << 32) | (inner << 1) | uint64_t(s.swapped[step.node]);
    }
    return key;
  }

  void try_node(size_t k, NodeIndex n, const State& s0) {
    const int pi = plan_.order[k];
    const PatternNode& pn = p_.nodes[pi];
    if (eg_.is_projection(n) || eg_.op_of(n) != pn.op) return;
    const ENode& e = eg_.node(n);
    if (e.children.size() != pn.inputs.size()) return;
    // The graph matcher's parameter test, early (constants' shapes are re-derived,
    // transposes compare by permutation: both left to it).
    if (pn.kind == PatternKind::op && e.op != OpType::transpose && !params_equal(e.op, e.params, pn.params()))
      return;
    if (!producers_fit(pn, e)) return;
    const ClassId own = eg_.class_of(n);
    for (size_t i = 0; i < p_.nodes.size(); ++i)
      if (s0.nodes[i] >= 0 && eg_.class_of(s0.nodes[i]) == own) return;
    State s;
    copy_used(s, s0);
    s.nodes[pi] = n;
    for (int port = 0; port < int(pn.rule_shapes.size()); ++port) {
      ClassId out = own;
      if (pn.rule_shapes.size() > 1) out = eg_.projection(own, port).value_or(kAbsent);
      ClassId& b = s.bound[pi * kMaxOutputs + port];
      if (b != kUnbound && b != out) return;
      // Bound here first, where the pattern's order binds it from a consumer: that check.
      if (b == kUnbound && out >= 0 && plan_.checked[pi * kMaxOutputs + port] && !fits_class({pi, port}, out))
        return;
      b = out;
    }
    const bool swap_too = op_info(e.op).commutative && eg_.find(e.children[0]) != eg_.find(e.children[1]);
    if (!swap_too) {
      if (bind_inputs(pn, e, false, s)) extend(k + 1, s);
      return;
    }
    for (int swapped = 0; swapped <= 1; ++swapped) {
      State t;
      copy_used(t, s);
      t.swapped[pi] = int8_t(swapped);
      if (bind_inputs(pn, e, swapped, t)) extend(k + 1, t);
    }
  }

  // What the pattern's order checks of the class a consumer binds a tensor to first.
  bool fits_class(PatternTensor want, ClassId actual) const {
    const EClass& c = eg_.eclass(actual);
    if (c.descs.size() != 1) return false;
    const PatternNode& producer = p_.nodes[want.node];
    if (producer.rule_shapes[want.port].rank() != c.descs[0].shape.rank()) return false;
    return producer.kind == PatternKind::variable || producer.rule_shapes.size() != 1 ||
           (c.ops & (uint64_t(1) << static_cast<int>(producer.op)));
  }

  // A look before copying any state: each input the pattern computes has an
  // e-node of the right operator in the class it meets (either order when commutative).
  bool producers_fit(const PatternNode& pn, const ENode& e) const {
    auto fits = [&](bool swapped) {
      for (size_t j = 0; j < pn.inputs.size(); ++j) {
        const PatternNode& producer = p_.nodes[pn.inputs[j].node];
        if (producer.kind == PatternKind::variable || producer.rule_shapes.size() != 1) continue;
        const uint64_t ops = eg_.eclass(e.children[swapped ? 1 - j : j]).ops;
        if (!(ops & (uint64_t(1) << static_cast<int>(producer.op)))) return false;
      }
      return true;
    };
    return fits(false) || (op_info(e.op).commutative && fits(true));
  }

  bool bind_inputs(const PatternNode& pn, const ENode& e, bool swapped, State& s) const {
    for (size_t j = 0; j < pn.inputs.size(); ++j) {
      const ClassId actual = eg_.find(e.children[swapped ? 1 - j : j]);
      const PatternTensor want = pn.inputs[j];
      ClassId& b = bound(s, want);
      if (b != kUnbound) {
        if (b != actual) return false;
        continue;
      }
      // Unchecked where the pattern's order binds it from its producer (so
      // that both orders find the same occurrences); variables are always checked.
      if (plan_.checked[want.node * kMaxOutputs + want.port] && !fits_class(want, actual)) return false;
      b = actual;
    }
    return true;
  }

  // No variable meets a class an operator of the occurrence computes.
  bool valid(const State& s) const {
    const std::span<const ClassId> variables(s.variables.data(), p_.variable_names.size());
    for (size_t i = 0; i < p_.nodes.size(); ++i) {
      if (s.nodes[i] < 0 || p_.nodes[i].kind != PatternKind::op) continue;
      for (ClassId v : variables)
        if (v >= 0 && v == eg_.class_of(s.nodes[i])) return false;
      for (int port = 0; p_.nodes[i].rule_shapes.size() > 1 && port < int(p_.nodes[i].rule_shapes.size());
           ++port)
        for (ClassId v : variables)
          if (v >= 0 && v == s.bound[i * kMaxOutputs + port]) return false;
    }
    return true;
  }

  const EGraph& eg_;
  const EMatchPlan& plan_;
  const Pattern& p_;
  const std::function<void(const EMatch&)>& visit_;
  int64_t* candidates_;                             // counts the e-nodes tried past the anchor, if given
  std::vector<std::pair<Position, EMatch>> found_;  // reordered plans: visited sorted in run()
};

}  // namespace

void ematch_at(const EGraph& eg, const EMatchPlan& plan, const Pattern& p, NodeIndex anchor,
               const std::function<void(const EMatch&)>& visit, int64_t* candidates) {
  EMatcher(eg, plan, p, visit, candidates).run(anchor);
}

void ematch_at(const EGraph& eg, const Pattern& p, NodeIndex anchor,
               const std::function<void(const EMatch&)>& visit) {
  ematch_at(eg, plan_ematch(p), p, anchor, visit);
}

}  // namespace superopt::egraph
