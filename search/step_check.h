// Finding the rule application that broke a wrong result: the numerical check
// run again on each application alone, the graph before it against the graph
// after it, in the order the search applied them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "search/backtrack.h"
#include "search/search.h"

namespace superopt::search {

struct BrokenStep {
  int rule = -1;         // index into RuleIndex::rules
  NumericalCheck check;  // of that application alone
};

// The first application along the traces whose graph differs from the graph
// before it (numerical_check with the seed, FLOPs limit and deadline of the
// final check), or nullopt when every application passes on its own (or is
// inconclusive) or the deadline cut a check short.
std::optional<BrokenStep> first_broken_step(const std::vector<Trace>& traces, uint64_t seed,
                                            int64_t flops_limit, Clock::time_point deadline);

}  // namespace superopt::search
