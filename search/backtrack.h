// MetaFlow's backtracking search (Algorithm 1, TASO Algorithm 2): a queue of
// graphs by cost, alpha pruning, a budget of dequeued graphs, a deadline, and
// de-duplication by canonical hash with an exact check on collision.
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <vector>

#include "runtime/cost/cost_model.h"
#include "runtime/rewrite/rewrite.h"

namespace superopt::search {

using Clock = std::chrono::steady_clock;

// Directed rules grouped by the operator type of their anchor.
struct RuleIndex {
  std::vector<DirectedRule> rules;
  std::array<std::vector<int>, kNumOpTypes> by_anchor;
};
RuleIndex index_rules(std::vector<DirectedRule> rules);

// Calls visit for every occurrence of every rule in g.
void for_each_occurrence(const Graph& g, const RuleIndex& rules,
                         const std::function<void(const DirectedRule&, const Match&)>& visit);

struct SearchLimits {
  double alpha = 1.05;
  int64_t budget = 1000;
  Clock::time_point deadline = Clock::time_point::max();
  int max_queue = 256;
};

struct SearchOutcome {
  Graph best;
  double start_cost_ms = 0;
  double best_cost_ms = 0;
  int64_t explored = 0;
  bool finished = false;     // the queue ran empty: nothing left within the limits but alpha
  std::vector<int> history;  // indices into RuleIndex::rules, in application order
};

SearchOutcome backtracking_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                                  const SearchLimits& limits);

}  // namespace superopt::search
