// MetaFlow's backtracking search (Algorithm 1, TASO Algorithm 2): a queue of
// graphs by cost, alpha pruning, a budget of dequeued graphs, a deadline, and
// de-duplication by canonical hash with an exact check on collision.
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/cost/cost_model.h"
#include "runtime/rewrite/rewrite.h"
#include "runtime/rewrite/rule_index.h"
#include "search/deadline.h"

namespace superopt::search {

using Clock = std::chrono::steady_clock;

struct SearchLimits {
  double alpha = 1.05;
  int64_t budget = 1000;
  Deadline deadline;  // a time point, and the stop flag
  int max_queue = 256;
  // The graph copies one search may hold (graph_bytes.h): at this many bytes it
  // stops exploring, as at the deadline, and keeps the best graph found.
  int64_t max_held_bytes = std::numeric_limits<int64_t>::max();
  // Graphs kept beside the best for end-to-end timing (SearchOutcome::alternatives).
  int alternatives = 3;
};

// One rule application on the way to a search's best graph. The graph after it
// is kept so that a wrong result can be re-checked step by step (the search
// holds these graphs anyway while it runs).
struct Step {
  int rule = -1;  // index into RuleIndex::rules
  std::shared_ptr<const Graph> after;
};

// The applications one search made to reach its best graph from `start`.
struct Trace {
  std::shared_ptr<const Graph> start;
  std::vector<Step> steps;
};

// The applications that reached a graph, shared between a graph and its
// successors (searches keep one per graph they hold), and the trace they make.
struct StepHistory {
  Step step;
  std::shared_ptr<const StepHistory> parent;
};
Trace unwind(std::shared_ptr<const Graph> start, const std::shared_ptr<const StepHistory>& h);

// A graph the search reached beside its best, and how: what end-to-end
// acceptance (search/end_to_end.h) times beside the best.
struct Alternative {
  std::shared_ptr<const Graph> graph;
  double cost_ms = 0;
  std::vector<Trace> traces;  // as SearchOutcome::traces
};

struct SearchOutcome {
  // The outcome before any search: g itself, at cost_ms.
  static SearchOutcome start_at(const Graph& g, double cost_ms) {
    SearchOutcome o;
    o.best = g;
    o.start_cost_ms = o.best_cost_ms = cost_ms;
    return o;
  }
  Graph best;
  double start_cost_ms = 0;
  double best_cost_ms = 0;
  int64_t explored = 0;
  bool finished = false;  // the queue ran empty: nothing left within the limits but alpha
  // The best graph's history: one trace per search that contributed to it (a
  // whole-graph search gives one; a split search one per part and seam window
  // it kept, then the final pass), in application order.
  std::vector<Trace> traces;
  // Sampling (OCGGS Algorithm 3): the most sequences kept for one length (<= Q).
  int64_t widest_level = 0;
  bool memory_full = false;  // the graph copies held reached max_held_bytes: it stopped there
  int64_t held_bytes = 0;    // the most graph copies one search held, in bytes (graph_bytes.h)
  // The cheapest other graphs that entered the queue (at most
  // SearchLimits::alternatives), cheapest first, distinct from the best and
  // from each other. With a measured cost model the best replaces the start
  // only when cheaper beyond the noise (runtime/cost/cost_spread.h): graphs
  // cheaper within the noise are among these, for the end-to-end timing.
  std::vector<Alternative> alternatives;
};

// The rules applied along the traces, in order (indices into RuleIndex::rules).
std::vector<int> applied_rules(const std::vector<Trace>& traces);

SearchOutcome backtracking_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                                  const SearchLimits& limits);

}  // namespace superopt::search
