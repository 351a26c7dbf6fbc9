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

// Saturates until the options' limits or `deadline` (half of the time left
// goes to saturation, the rest to extraction), extracts, and keeps the cheaper
// of the greedy and ILP graphs by graph_cost_ms.
EqsatOutcome eqsat_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                          const SearchOptions& options, Clock::time_point deadline);

}  // namespace superopt::search
