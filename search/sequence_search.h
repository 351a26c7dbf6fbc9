// The searches of OCGGS (Fang et al., VLDB 2020) over substitution sequences
// of length at most K: brute-force enumeration (ENU, its baseline), Pruning
// (Algorithm 1), DP with pruning (Algorithm 2) and Sampling (Algorithm 3).
// Each returns the trace of its best graph like backtracking_search does.
#pragma once

#include <functional>

#include "search/backtrack.h"

namespace superopt::search {

struct SequenceLimits {
  int max_length = 10;    // K
  int sample_size = 20;   // Q (Sampling)
  int eta = 1;            // successive cost increases allowed (Sampling)
  int64_t budget = 1000;  // graphs expanded (their substitutions found)
  Deadline deadline;      // a time point, and the stop flag
  // Called with every sequence's graph and length as it is examined (tests
  // compare what the searches examine).
  std::function<void(const Graph&, int)> examined;
};

// Every sequence of length <= K (no order, no de-duplication).
SearchOutcome enumeration_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                                 const SequenceLimits& limits);
// Algorithm 1: only ordered sequences (Corollary 1).
SearchOutcome pruning_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                             const SequenceLimits& limits);
// Algorithm 2: Algorithm 1, finding a graph's substitutions from its father's
// (Theorem 6) and matching again only near the last rewrite.
SearchOutcome dpp_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                         const SequenceLimits& limits);
// Algorithm 3: at most Q sequences per length, Q/2 of them cost-decreasing and
// Q/2 reached through at most eta successive cost increases.
SearchOutcome sampling_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                              const SequenceLimits& limits);

}  // namespace superopt::search
