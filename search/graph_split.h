// MetaFlow's flow-based recursive graph split (Algorithm 2): an operator's
// capacity is the number of rule occurrences that span it; a minimum vertex cut
// (Boost max-flow) splits the graph until parts have at most `threshold`
// operators (part_search.h searches them).
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

}  // namespace superopt::search
