// Searching a graph in parts (MetaFlow section 5): parts of the split are
// searched alone, stitched, then searched in windows around the seams.
#pragma once

#include "search/backtrack.h"

namespace superopt::search {

struct SplitOutcome {
  SearchOutcome search;  // explored summed and traces gathered over the parts and seams
  int parts = 1;
  int seams_searched = 0;
  double split_seconds = 0;  // finding the parts (the rest is searching)
};

// Searches g whole when it has at most `threshold` operators (or threshold is
// 0); otherwise splits it, searches every part with the limits (the deadline
// shared out), stitches, searches windows around the seams, and ends with a
// greedy pass over the whole graph. Once the deadline has passed, what is left
// of these steps is skipped: the parts not yet searched stay as they are.
SplitOutcome split_and_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                              const SearchLimits& limits, int threshold);

}  // namespace superopt::search
