// Many directed rules ready for matching, indexed by their anchor: its operator,
// its parameters and the operators of its inputs (a variable input matches any),
// so that a graph node is tried only against rules whose anchor could match it.
// At 4 operators tens of thousands of rules share an anchor operator; almost all
// of them differ from a given node in a parameter or an input's producer.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "runtime/rewrite/rewrite.h"

namespace superopt {

// The operators (each as often as it occurs: "at least k of op") and producer
// edges (operator, input slot, producing operator) of a graph or a rule's
// source, hashed into 256 bits. A rule whose source needs a feature the graph
// lacks cannot match anywhere in it: the matcher binds the pattern's operators
// to distinct nodes of the same operators (node_fits, matched), and each of
// their operator inputs to a producer of that operator (producers_fit).
struct FeatureMask {
  std::array<uint64_t, 4> bits{};

  bool covers(const FeatureMask& need) const {
    uint64_t missing = 0;
    for (size_t w = 0; w < bits.size(); ++w) missing |= need.bits[w] & ~bits[w];
    return missing == 0;
  }
};
FeatureMask graph_features(const Graph& g);
FeatureMask pattern_features(const Pattern& p);

struct RuleIndex {
  std::vector<DirectedRule> rules;
  std::vector<FeatureMask> needs;                       // per rule: pattern_features of its source
  std::array<std::vector<int>, kNumOpTypes> by_anchor;  // every rule, by anchor operator, in order added
  // Rules by anchor key (rule_index.cc), each list in the order added; keys
  // that collide share a list, which only costs a failed match.
  std::unordered_map<uint64_t, std::vector<int>> by_key;
  // Per anchor operator, the sets of input slots that some rule leaves open
  // (bit j: input j is a variable): the variants of a node's key to look up.
  std::array<std::vector<uint32_t>, kNumOpTypes> open_slots;

  void add(DirectedRule rule);
};
RuleIndex index_rules(std::vector<DirectedRule> rules);

// Calls visit for every occurrence in g of every rule, or of the first
// `first_n` rules added (an index built in derivation order, cut where a
// derivation may no longer look). The order is fixed (derivations and
// searches depend on it): by anchor operator, then by rule in the order added,
// then by anchor node; the same order as trying every rule at every node.
void for_each_occurrence(const Graph& g, const RuleIndex& rules,
                         const std::function<void(const DirectedRule&, const Match&)>& visit,
                         int first_n = -1);

// The same, with the rule's position in rules.rules, for the anchors that
// `near` marks (indexed by node; null: every node).
void for_each_occurrence_near(const Graph& g, const RuleIndex& rules, const std::vector<char>* near,
                              const std::function<void(int, const Match&)>& visit, int first_n = -1);

}  // namespace superopt
