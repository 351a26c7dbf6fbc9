// Equality saturation over the rules, then extraction (Tensat): the input graph
// seeds an e-graph, every rule direction grows it (runtime/egraph/), and the
// cheapest graph in it is extracted greedily or exactly by ILP (CBC).
#pragma once

#include <vector>

#include "runtime/cost/cost_model.h"
#include "runtime/rewrite/rule_index.h"
#include "search/backtrack.h"
#include "search/search.h"

namespace superopt::search {

struct EqsatOutcome {
  Graph best;  // the input itself when extraction found nothing cheaper
  double start_cost_ms = 0, best_cost_ms = 0;
  EqsatStats stats;
  // Per rule direction (index into the rule index's rules): extracted e-nodes it added.
  std::vector<std::pair<int, int>> rules_involved;
};

// Up to eqsat_rounds rounds of saturation and extraction, all within
// eqsat_time_limit_s and `deadline` (each round saturates for 60 % of the time
// left, and at most half of what `deadline` leaves); each round is seeded with
// the graph the one before extracted. Keeps the cheapest graph built (greedy,
// ILP, polish) by graph_cost_ms, the input when none is cheaper.
EqsatOutcome eqsat_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                          const SearchOptions& options, Clock::time_point deadline);

}  // namespace superopt::search
