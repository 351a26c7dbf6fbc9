// optimize(): choose the usable rules, search (whole graph or split into
// parts), count what is precomputed at load time, and check the result.
#include <chrono>
#include <limits>

#include "runtime/core/error.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/cost/cost_model.h"
#include "search/backtrack.h"
#include "search/fold.h"
#include "search/graph_split.h"
#include "search/numerical_check.h"
#include "search/part_search.h"
#include "search/search.h"

namespace superopt {
namespace {

bool usable(const Rule& r, bool allow_unverified) {
  return r.status == RuleStatus::verified || (allow_unverified && r.status == RuleStatus::candidate);
}

// Operators whose inputs are all weights, constants or such operators: TASO's
// inference preprocessing computes them once at load time (they cost 0).
int64_t count_precomputed(const Graph& g) {
  std::vector<bool> fixed = weight_only_nodes(g);
  int64_t count = 0;
  for (NodeId id = 0; id < g.num_nodes(); ++id) count += fixed[id] && g.node(id).num_inputs > 0;
  return count;
}

}  // namespace

OptimizeResult optimize(const Graph& g, const std::vector<Rule>& rules, CostModel& cost,
                        const SearchOptions& options) {
  auto start = search::Clock::now();
  std::vector<DirectedRule> directed;
  int usable_rules = 0;
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!usable(rules[i], options.allow_unverified)) continue;
    ++usable_rules;
    for (DirectedRule& d : compile_rule(rules[i], int(i))) directed.push_back(std::move(d));
  }
  if (usable_rules == 0)
    throw Error(options.allow_unverified ? "the rule database has no verified or candidate rule"
                                         : "the rule database has no verified rule (--allow-unverified "
                                           "uses candidate rules)");
  search::RuleIndex index = search::index_rules(std::move(directed));

  search::SearchLimits limits;
  limits.alpha = options.alpha;
  limits.budget = options.budget;
  limits.max_queue = options.max_queue;
  if (options.exhaustive) {
    limits.alpha = std::numeric_limits<double>::infinity();
    limits.budget = std::numeric_limits<int64_t>::max() / 128;  // the split takes percentages of it
    limits.max_queue = std::numeric_limits<int>::max();
  }
  limits.deadline = start + std::chrono::duration_cast<search::Clock::duration>(
                                std::chrono::duration<double>(options.time_limit_s));

  OptimizeResult result;
  result.rules_used = int(index.rules.size());
  search::SplitOutcome outcome = search::split_and_search(g, index, cost, limits, options.split_threshold);
  result.graph = std::move(outcome.search.best);
  result.cost_before_ms = outcome.search.start_cost_ms;
  result.cost_after_ms = outcome.search.best_cost_ms;
  result.graphs_explored = outcome.search.explored;
  result.finished = outcome.search.finished;
  result.parts = outcome.parts;
  for (int r : search::applied_rules(outcome.search.traces)) {
    const std::string& label = index.rules[r].label;
    result.rule_sequence.push_back(label);
    ++result.rules_applied[label];
  }
  result.search_seconds = std::chrono::duration<double>(search::Clock::now() - start).count();
  search::Folded folded = search::fold_precomputed(result.graph);
  result.graph = std::move(folded.graph);
  result.folded_operators = folded.operators;
  result.precomputed_operators = count_precomputed(result.graph);
  if (options.check) {
    result.check = search::numerical_check(g, result.graph, options.seed, options.check_flops_limit);
    if (!result.check.passed) result.graph = g;
  }
  return result;
}

}  // namespace superopt
