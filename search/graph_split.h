// MetaFlow's flow-based recursive graph split (Algorithm 2): an operator's
// capacity is the number of rule occurrences that span it; a minimum vertex cut
// (Boost max-flow) splits the graph until parts have at most `threshold`
// operators; parts are searched alone, stitched, then searched around the seams.
#pragma once

#include <cstdint>
#include <vector>

#include "search/backtrack.h"

namespace superopt::search {

// Operators are what parts hold; inputs, weights and constants belong to every part.
inline bool is_operator(OpType op) {
  return op != OpType::input && op != OpType::weight && !is_constant(op);
}

// Per node: the rule occurrences that cutting the graph after it would separate:
// MetaFlow's occurrences using one of its inputs and one of its outputs, and
// occurrences reading its output in two of their operators.
std::vector<int64_t> occurrence_capacity(const Graph& g, const RuleIndex& rules);

// Parts of g's operators (sources belong to none), each at most `threshold`
// operators, listed so that every part reads only sources and earlier parts.
std::vector<std::vector<NodeId>> split_graph(const Graph& g, const std::vector<int64_t>& capacity,
                                             int threshold);

struct SplitOutcome {
  SearchOutcome search;  // explored and history summed over the parts and seams
  int parts = 1;
  int seams_searched = 0;
};

// Searches g whole when it has at most `threshold` operators (or threshold is
// 0); otherwise splits it, searches every part with the limits (the deadline
// shared out), stitches, searches windows around the seams, and ends with a
// greedy pass over the whole graph.
SplitOutcome split_and_search(const Graph& g, const RuleIndex& rules, CostModel& cost,
                              const SearchLimits& limits, int threshold);

}  // namespace superopt::search
