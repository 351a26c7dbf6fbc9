// Rules indexed by anchor key (see rule_index.h). A rule's key is its anchor's
// operator, parameters, number of inputs and the operators producing them (a
// variable input: any). A node looks up one key per set of open input slots
// that rules of its operator use, with those slots made "any"; the keys are
// exactly the matcher's first checks (node_fits, producers_fit in matcher.cc),
// so every rule left out would have failed at the anchor. A rule whose source
// needs an operator or producer edge the graph lacks (FeatureMask) is left out
// too: it would have failed deeper.
#include "runtime/rewrite/rule_index.h"

#include <algorithm>

#include "runtime/core/hashing.h"

namespace superopt {
namespace {

constexpr int kAnyProducer = kNumOpTypes;  // a variable input: any operator
using Producers = std::array<int, kMaxInputs>;

// Transposes compare by the permutation they perform, not by their parameters,
// and constants by operator alone: their rules leave the parameters open.
bool params_open(const PatternNode& anchor) {
  return anchor.kind == PatternKind::constant || anchor.op == OpType::transpose;
}

uint64_t anchor_key(OpType op, bool any_params, uint64_t params_h, Producers producers, int num_inputs) {
  if (op_info(op).commutative && num_inputs == 2 && producers[1] < producers[0])
    std::swap(producers[0], producers[1]);
  uint64_t h = hash_combine(hash_combine(static_cast<uint64_t>(op), any_params), params_h);
  h = hash_combine(h, static_cast<uint64_t>(num_inputs));
  for (int j = 0; j < num_inputs; ++j) h = hash_combine(h, static_cast<uint64_t>(producers[j]));
  return h;
}

// A commutative operator's two inputs are matched either way round, so their
// edges do not name the slot.
constexpr uint64_t kEitherSlot = kMaxInputs;

void set_feature(FeatureMask& m, uint64_t h) {
  h = hash_combine(h, 0x9e3779b97f4a7c15ull);
  m.bits[(h >> 6) % m.bits.size()] |= uint64_t(1) << (h & 63);
}

// The k-th node of operator op (k from 1).
void set_node(FeatureMask& m, OpType op, int k) {
  set_feature(m, hash_combine(static_cast<uint64_t>(op), uint64_t(k)));
}

// Edges hash from their own seed, apart from node features.
constexpr uint64_t kEdgeSeed = 0x45444745;  // "EDGE"

void set_edge(FeatureMask& m, OpType op, int num_inputs, int slot, OpType producer) {
  const uint64_t s = op_info(op).commutative && num_inputs == 2 ? kEitherSlot : uint64_t(slot);
  const uint64_t edge = hash_combine(hash_combine(kEdgeSeed, static_cast<uint64_t>(op)), s);
  set_feature(m, hash_combine(edge, static_cast<uint64_t>(producer)));
}

uint32_t swap_first_two(uint32_t open) {
  return (open & ~3u) | ((open & 1u) << 1) | ((open >> 1) & 1u);
}

// The keys under which a rule anchored at node `id` may be filed, deduplicated.
void node_keys(const Graph& g, NodeId id, const RuleIndex& rules, std::vector<uint64_t>& keys) {
  const Node& n = g.node(id);
  Producers actual{};
  for (int j = 0; j < n.num_inputs; ++j) actual[j] = static_cast<int>(g.node(n.input_array[j].node).op);
  const uint64_t params_h = params_hash(n.op, n.params, 0);
  keys.clear();
  for (uint32_t open : rules.open_slots[static_cast<int>(n.op)]) {
    Producers producers = actual;
    for (int j = 0; j < n.num_inputs; ++j)
      if (open >> j & 1u) producers[j] = kAnyProducer;
    keys.push_back(anchor_key(n.op, false, params_h, producers, n.num_inputs));
    keys.push_back(anchor_key(n.op, true, 0, producers, n.num_inputs));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
}

// The (rule, anchor) pairs worth matching for one operator's anchors
// (ascending), sorted: rules in the order added, then anchors.
void candidates(const Graph& g, const RuleIndex& rules, const FeatureMask& has,
                const std::vector<NodeId>& anchors, int first_n, std::vector<std::pair<int, NodeId>>& tries) {
  std::vector<uint64_t> keys;
  tries.clear();
  for (NodeId a : anchors) {
    node_keys(g, a, rules, keys);
    for (uint64_t key : keys) {
      auto it = rules.by_key.find(key);
      if (it == rules.by_key.end()) continue;
      for (int r : it->second) {
        if (first_n >= 0 && r >= first_n) break;  // lists go in the order rules were added
        if (has.covers(rules.needs[r])) tries.push_back({r, a});
      }
    }
  }
  std::sort(tries.begin(), tries.end());
}

}  // namespace

FeatureMask graph_features(const Graph& g) {
  FeatureMask m;
  std::array<int, kNumOpTypes> count{};
  for (const Node& n : g.nodes()) {
    set_node(m, n.op, ++count[static_cast<int>(n.op)]);
    for (int j = 0; j < n.num_inputs; ++j)
      set_edge(m, n.op, n.num_inputs, j, g.node(n.input_array[j].node).op);
  }
  return m;
}

FeatureMask pattern_features(const Pattern& p) {
  FeatureMask m;
  std::array<int, kNumOpTypes> count{};
  for (const PatternNode& pn : p.nodes) {
    if (pn.kind == PatternKind::variable) continue;
    set_node(m, pn.op, ++count[static_cast<int>(pn.op)]);
    for (size_t j = 0; j < pn.inputs.size(); ++j) {
      const PatternNode& producer = p.nodes[pn.inputs[j].node];
      if (producer.kind != PatternKind::variable)
        set_edge(m, pn.op, int(pn.inputs.size()), int(j), producer.op);
    }
  }
  return m;
}

void RuleIndex::add(DirectedRule rule) {
  const Pattern& p = rule.source;
  const PatternNode& anchor = p.nodes[p.match_order.front()];
  Producers producers{};
  uint32_t open = 0;
  for (size_t j = 0; j < anchor.inputs.size(); ++j) {
    const PatternNode& in = p.nodes[anchor.inputs[j].node];
    producers[j] = in.kind == PatternKind::variable ? kAnyProducer : static_cast<int>(in.op);
    if (in.kind == PatternKind::variable) open |= 1u << j;
  }
  const bool any_params = params_open(anchor);
  const uint64_t key =
      anchor_key(anchor.op, any_params, any_params ? 0 : params_hash(anchor.op, anchor.params(), 0),
                 producers, int(anchor.inputs.size()));
  const int op = static_cast<int>(anchor.op);
  std::vector<uint32_t>& slots = open_slots[op];
  // A commutative anchor matches its inputs either way round: look up both.
  for (uint32_t o : {open, op_info(anchor.op).commutative ? swap_first_two(open) : open})
    if (std::find(slots.begin(), slots.end(), o) == slots.end()) slots.push_back(o);
  by_key[key].push_back(int(rules.size()));
  by_anchor[op].push_back(int(rules.size()));
  needs.push_back(pattern_features(rule.source));
  rules.push_back(std::move(rule));
}

RuleIndex index_rules(std::vector<DirectedRule> rules) {
  RuleIndex index;
  for (DirectedRule& r : rules) index.add(std::move(r));
  return index;
}

void for_each_occurrence_near(const Graph& g, const RuleIndex& rules, const std::vector<char>* near,
                              const std::function<void(int, const Match&)>& visit, int first_n) {
  GraphIndex index(g);
  const FeatureMask has = graph_features(g);
  std::vector<NodeId> anchors;
  std::vector<std::pair<int, NodeId>> tries;
  for (int op = 0; op < kNumOpTypes; ++op) {
    anchors.clear();
    for (NodeId v : index.nodes_of(static_cast<OpType>(op)))
      if (!near || (*near)[v]) anchors.push_back(v);
    if (anchors.empty() || rules.by_anchor[op].empty()) continue;
    candidates(g, rules, has, anchors, first_n, tries);
    for (size_t i = 0; i < tries.size();) {
      const int r = tries[i].first;
      std::function<void(const Match&)> at = [&](const Match& m) { visit(r, m); };
      for (; i < tries.size() && tries[i].first == r; ++i)
        match_at(g, index, rules.rules[r].source, tries[i].second, at);
    }
  }
}

void for_each_occurrence(const Graph& g, const RuleIndex& rules,
                         const std::function<void(const DirectedRule&, const Match&)>& visit, int first_n) {
  for_each_occurrence_near(
      g, rules, nullptr, [&](int r, const Match& m) { visit(rules.rules[r], m); }, first_n);
}

}  // namespace superopt
