// Many directed rules ready for matching: grouped by the operator type of their
// anchor, so that a graph is tried only against rules whose anchor it has.
#pragma once

#include <array>
#include <functional>
#include <vector>

#include "runtime/rewrite/rewrite.h"

namespace superopt {

struct RuleIndex {
  std::vector<DirectedRule> rules;
  std::array<std::vector<int>, kNumOpTypes> by_anchor;

  void add(DirectedRule rule);
};
RuleIndex index_rules(std::vector<DirectedRule> rules);

// Calls visit for every occurrence in g of every rule, or of the first
// `first_n` rules added (an index built in derivation order, cut where a
// derivation may no longer look).
void for_each_occurrence(const Graph& g, const RuleIndex& rules,
                         const std::function<void(const DirectedRule&, const Match&)>& visit,
                         int first_n = -1);

}  // namespace superopt
